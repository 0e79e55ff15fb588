"""One module per `ctxmode` subcommand, each exposing a click object named `command`."""
