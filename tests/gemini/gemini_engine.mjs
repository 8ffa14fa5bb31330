// Gemini CLI's own policy engine and shell parser, from the pinned bundle, for
// tests/gemini/test_decisions_gemini.py: `node gemini_engine.mjs <bundle folder>`
// reads one JSON request per line on stdin and writes one JSON answer per line:
//   {"split": [line, ...]} -> [[command, ...] | null, ...]: the commands of each
//     line that checkShellCommand checks on their own (parseCommandDetails'
//     details without the redirections and substitutions it skips), null where
//     Gemini cannot parse the line;
//   {"extension": [folder], "user": [file], "interactive": bool,
//    "calls": [{"name", "args", "subagent"}]} -> [decision, ...]: PolicyEngine.check
//     with Gemini's own policies, the extension's as Gemini loads them (its allow
//     rules dropped) and the user's, as a session with or without a user.
import { createInterface } from "node:readline";
import { join } from "node:path";

const [bundle] = process.argv.slice(2);
// The engine logs each decision to the console: only the answers go out.
const write = process.stdout.write.bind(process.stdout);
console.log = console.debug = console.info = console.warn = () => {};
const m = await import(join(bundle, "chunk-JDPZ4CE3.js"));
await m.initializeShellParsers();

// checkShellCommand's REDIRECTION_NAMES: details it does not check again.
const SKIPPED = new Set([
  "redirection (<)",
  "redirection (>)",
  "heredoc (<<)",
  "herestring (<<<)",
  "command substitution",
  "backtick substitution",
  "process substitution",
  "subshell",
]);

function split(lines) {
  return lines.map((line) => {
    const parsed = m.parseCommandDetails(line);
    if (!parsed || parsed.hasError) return null;
    return parsed.details.filter((d) => !SKIPPED.has(d.name)).map((d) => d.text.trim());
  });
}

async function decide(request) {
  const rules = [];
  const keep = (found) => {
    if (found.errors.length) throw new Error(JSON.stringify(found.errors));
    rules.push(...found.rules);
  };
  keep(await m.loadPoliciesFromToml([join(bundle, "policies")], () => m.DEFAULT_POLICY_TIER));
  for (const folder of request.extension) keep(await m.loadExtensionPolicies("promptc", folder));
  keep(await m.loadPoliciesFromToml(request.user, () => m.USER_POLICY_TIER));
  const engine = new m.PolicyEngine({ rules, nonInteractive: !request.interactive });
  const out = [];
  for (const call of request.calls) {
    const call_ = { name: call.name, args: call.args };
    out.push((await engine.check(call_, undefined, undefined, call.subagent)).decision);
  }
  return out;
}

for await (const line of createInterface({ input: process.stdin })) {
  const request = JSON.parse(line);
  const answer = request.split ? split(request.split) : await decide(request);
  write(JSON.stringify(answer) + "\n");
}
