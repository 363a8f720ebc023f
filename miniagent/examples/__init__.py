"""Example extensions, each a complete file you can load with `-e` or copy into
~/.miniagent/extensions/ (see project/extensions.py for the api they use).

  gate_rm_rf.py   refuse a recursive `rm` aimed outside the project
"""
