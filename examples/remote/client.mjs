// A minimal agent for Mafia Arena's remote seat protocol (docs/remote.md), in JavaScript: Node.js 18 or newer,
// nothing to install (it uses the built-in fetch). It says one line in each speech and otherwise gives the rule's
// own default, which every request carries.
//
//   arena play --seat 3=remote          # prints the URL and seat 3's token on stderr
//   node examples/remote/client.mjs --url http://127.0.0.1:PORT/v1 --token TOKEN

const args = Object.fromEntries(
  process.argv.slice(2).reduce((pairs, word, i, all) => (i % 2 ? pairs : [...pairs, [word.slice(2), all[i + 1]]]), []),
);
const headers = { Authorization: `Bearer ${args.token}`, "Content-Type": "application/json" };

async function call(path, body) {
  for (let tries = 0; ; tries++) {
    try {
      const response = await fetch(args.url + path, body ? { method: "POST", headers, body: JSON.stringify(body) } : { headers });
      return [response.status, await response.json()];
    } catch (error) {
      if (tries > 600) throw error; // the arena may start after us: retry for two minutes
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

function decide(turn) {
  const request = turn.request;
  if (request.kind === "speech" && !turn.problem) {
    return { ...request.default, text: "I am a quiet citizen and I will listen." };
  }
  return request.default;
}

const [status, hello] = await call("/hello");
if (status !== 200) throw new Error(`the arena refused the token: ${JSON.stringify(hello)}`);
for (;;) {
  const [, body] = await call("/turn?wait=30");
  if (body.status === "over") {
    console.log(`seat ${body.seat}: game over, ${body.winner} wins`);
    break;
  }
  if (body.status === "stopped") {
    console.error(`seat ${body.seat}: ${body.reason}`);
    process.exit(1);
  }
  if (body.status === "turn") await call("/answer", { turn: body.turn, decision: decide(body) });
}
