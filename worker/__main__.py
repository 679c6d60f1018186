from turncheck.worker.cli import main

main()
