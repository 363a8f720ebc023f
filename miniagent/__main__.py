try:
    from .cli import main
except KeyboardInterrupt:  # Ctrl-C while Python was still importing
    raise SystemExit(130)

raise SystemExit(main())
