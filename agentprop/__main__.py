"""`python -m agentprop`: the same CLI as the `agentprop` script."""

from agentprop.cli import main

if __name__ == "__main__":
    main()
