from turncheck.worker.cli.main import main

main()
