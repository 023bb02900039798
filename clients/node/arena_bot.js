'use strict';
// A small bot SDK for Node.js over the arena's gRPC protocol (arena.bot.v1).
//
// The proto files are loaded at run time from the repository's proto/ directory
// (or ARENA_PROTO_DIR), so this client always speaks the same contract as the
// gateway. Usage:
//
//   const { runBot } = require('./arena_bot');
//   runBot({ target: '127.0.0.1:50051', token, decide: (req) => req.legal_actions[0].text });
//
// Over TLS (a gateway started with arena serve --tls-cert/--tls-key): tls: true trusts
// the system's root certificates; caFile: 'cert.pem' trusts that PEM certificate (a CA,
// or the gateway's self-signed certificate) and implies tls.
//
// decide(request) gets the DecisionRequest as a plain object (snake_case field
// names, uint64 as strings, the observation under request[request.observation])
// and returns an action id (number) or an action text (string), or a Promise of one.

const fs = require('fs');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTO_DIR = process.env.ARENA_PROTO_DIR || path.resolve(__dirname, '..', '..', 'proto');

function loadProtocol(protoDir = PROTO_DIR) {
  const definition = protoLoader.loadSync('arena/bot/v1/bot.proto', {
    includeDirs: [protoDir],
    keepCase: true,
    longs: String,
    enums: String,
    defaults: false,
    oneofs: true,
  });
  return grpc.loadPackageDefinition(definition).arena.bot.v1;
}

function channelCredentials({ tls = false, caFile = null } = {}) {
  if (caFile) return grpc.credentials.createSsl(fs.readFileSync(caFile));
  if (tls) return grpc.credentials.createSsl();
  return grpc.credentials.createInsecure();
}

function runBot({ target, token, decide, name = 'node-bot', version = '0.1.0', maxConcurrent = 1,
                  reconnect = true, initialBackoffMs = 100, maxBackoffMs = 30000, log = () => {},
                  tls = false, caFile = null }) {
  const proto = loadProtocol();
  const client = new proto.BotService(target, channelCredentials({ tls, caFile }));
  let stopped = false;
  let backoff = initialBackoffMs;
  let call = null;
  const stats = { decisions: 0, errors: [], matchesEnded: 0 };

  function connect() {
    let welcomed = false;
    call = client.Connect();
    call.write({ hello: { token, bot_name: name, bot_version: version, max_concurrent_decisions: maxConcurrent } });
    call.on('data', async (message) => {
      switch (message.kind) {
        case 'welcome':
          welcomed = true;
          backoff = initialBackoffMs;
          log(`connected as ${message.welcome.bot_id} (session ${message.welcome.session_id})`);
          break;
        case 'ping':
          call.write({ pong: { nonce: message.ping.nonce } });
          break;
        case 'decision_request': {
          const request = message.decision_request;
          let action;
          try {
            action = await decide(request);
          } catch (err) {
            log(`decide failed: ${err}`);
            return;
          }
          if (action === undefined || action === null) return;
          const decision = { request_id: request.request_id };
          if (typeof action === 'number') decision.action_id = action;
          else decision.action_text = String(action);
          stats.decisions += 1;
          call.write({ decision });
          break;
        }
        case 'decision_error':
          stats.errors.push(message.decision_error);
          log(`decision refused: ${message.decision_error.code} ${message.decision_error.reason}`);
          break;
        case 'match_ended':
          stats.matchesEnded += 1;
          break;
        default:
          break;
      }
    });
    call.on('error', (err) => {
      if (stopped) return;
      if (err.code === grpc.status.UNAUTHENTICATED || err.code === grpc.status.INVALID_ARGUMENT) {
        log(`refused by the arena: ${err.details}`);
        stopped = true;
        process.exitCode = 2;
        client.close();
        return;
      }
      log(`stream error: ${err.details || err.message}`);
    });
    call.on('end', () => {
      if (stopped || !reconnect) { client.close(); return; }
      const delay = welcomed ? initialBackoffMs : backoff;
      backoff = Math.min(maxBackoffMs, backoff * 2);
      setTimeout(() => { if (!stopped) connect(); }, delay * (0.8 + 0.4 * Math.random()));
    });
  }

  connect();
  return {
    stats,
    stop() {
      stopped = true;
      if (call) call.cancel();
      client.close();
    },
  };
}

module.exports = { channelCredentials, loadProtocol, runBot, PROTO_DIR };
