"""The command line: click commands over the library API (main), and their output."""
