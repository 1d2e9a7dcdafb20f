"""The shell: the application, its main window, launcher and command line, files, recovery, workspaces,
error log and style."""
