"""The command wrapper: run a shell command, pass small output through, index big output."""
