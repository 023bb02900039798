#!/usr/bin/env node
'use strict';
// A bot for any game: a uniformly random legal action.
//   node random_bot.js --target 127.0.0.1:50051 --token "$ARENA_BOT_TOKEN" [--max-concurrent 4] [-v]
//                      [--tls | --ca-file cert.pem]   (TLS: system roots, or trust that certificate)

const { runBot } = require('./arena_bot');

function parseArgs(argv) {
  const args = { target: process.env.ARENA_TARGET || '127.0.0.1:50051',
                 token: process.env.ARENA_BOT_TOKEN || '', maxConcurrent: 1, verbose: false,
                 tls: false, caFile: null };
  for (let i = 0; i < argv.length; i += 1) {
    const a = argv[i];
    if (a === '--target') args.target = argv[++i];
    else if (a === '--token') args.token = argv[++i];
    else if (a === '--max-concurrent') args.maxConcurrent = Number(argv[++i]);
    else if (a === '-v' || a === '--verbose') args.verbose = true;
    else if (a === '--tls') args.tls = true;
    else if (a === '--ca-file') args.caFile = argv[++i];
    else { console.error(`unknown argument ${a}`); process.exit(64); }
  }
  return args;
}

const args = parseArgs(process.argv.slice(2));
const bot = runBot({
  target: args.target,
  token: args.token,
  name: 'random-node',
  maxConcurrent: args.maxConcurrent,
  tls: args.tls,
  caFile: args.caFile,
  log: args.verbose ? (m) => console.error(`[random-node] ${m}`) : () => {},
  decide(request) {
    const legal = request.legal_actions;
    const choice = legal[Math.floor(Math.random() * legal.length)];
    return choice.id !== undefined && choice.id !== null ? choice.id : choice.text;
  },
});

for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => { bot.stop(); process.exit(0); });
