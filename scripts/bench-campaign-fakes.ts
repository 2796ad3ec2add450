/**
 * bench:campaign's far side, in its own process so the app's CPU is measured alone: the fake
 * Twilio REST API and its far end (nobody answers; each call rings three steps of `stepMs`). Told the
 * account and the app's origin over IPC; answers with its base URL, then, when asked, every call
 * placed (to, ms) and the most calls at once it saw.
 */
import { attachFarEnd, type FarEnd } from "../tests/fakes/twilio-far-end.ts";
import { startFakeTwilioRest } from "../tests/fakes/twilio-rest.ts";

type Message = { kind: "start"; accountSid: string; authToken: string; number: string; stepMs: number } | { kind: "origin"; origin: string } | { kind: "report" };

const rest = await startFakeTwilioRest();
let farEnd: FarEnd | null = null;
let account = { authToken: "", stepMs: 100 };
const send = (m: object) => process.send!(m);

process.on("message", (m: Message) => {
  if (m.kind === "start") {
    rest.addAccount({ sid: m.accountSid, authToken: m.authToken });
    rest.addNumber(m.accountSid, m.number);
    account = { authToken: m.authToken, stepMs: m.stepMs };
    send({ kind: "ready", baseUrl: rest.baseUrl });
  } else if (m.kind === "origin") {
    farEnd = attachFarEnd(rest, { origin: m.origin, authToken: account.authToken, stepMs: account.stepMs });
    farEnd.setDefault("no-answer");
    send({ kind: "attached" });
  } else if (m.kind === "report") {
    send({ kind: "report", placed: (farEnd?.placed ?? []).map((p) => [p.to, p.at]), peak: farEnd?.peak ?? 0, live: farEnd?.live ?? 0 });
  }
});
process.on("disconnect", () => void rest.close().then(() => process.exit(0)));
send({ kind: "up" });
