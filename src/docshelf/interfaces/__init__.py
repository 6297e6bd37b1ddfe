"""The ways in: CLI (Typer), MCP server, HTTP API. Each is thin over ``Docshelf``."""
