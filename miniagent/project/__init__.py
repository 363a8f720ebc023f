"""The project: what a working directory may bring, and the trust it needs first.

Read in this order: `resources.py` (trust first, then settings, skills, extensions and
the system prompt, loaded for one run), `trust.py` (trusted directories, trust.json),
`settings.py` (settings.json, global and per project), `system_prompt.py` (the system
prompt with AGENTS.md), `skills.py` (SKILL.md files and /skill:name), `extensions.py`
(Python extensions: tools, hooks, commands), `extension_loader.py` (their files found,
imported and set up; loaded only when there are some), `extension_context.py` (api.ctx:
the UI each front end draws for them, the session read back), `wrappers.py` (why quoted text cannot close
the tags around it).
"""
