"""The product for coding agents: an MCP server (`mindinsight mcp`) over the analysed runs
under a base folder. `catalog` names the runs, `answers` computes each tool's answer as
plain data (no MCP types: testable alone), `server` exposes them with the MCP SDK."""
