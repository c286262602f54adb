from opkit.cli import main

main()
