#!/usr/bin/env node
// `npx inkpress-mcp` (the `bin` of package.json): the MCP server, run from its TypeScript source
// through tsx, as `npm start` runs the local runtime (both are dev tools of a clone after
// `npm install`). Its stdout is the MCP channel: messages go to stderr.
require('tsx/cjs');
require('./server.ts')
  .main()
  .catch((error) => {
    process.stderr.write(`inkpress-mcp: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
