"""The bundled templates. To change one, copy it into the folder named by [templates] dir
in config.toml and edit it there: a file of the same name there replaces the one here."""
