/**
 * The endpoint as a trunk's datagrams meet it: broken and hostile messages, requests it does not
 * take, and the UDP retransmission timers (with a short T1 so the timers run in milliseconds).
 * The far end here is a plain UDP socket writing SIP text, so every byte sent is the test's.
 */
import { createSocket, type Socket } from "node:dgram";
import { connect } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runSipp } from "../../../../tests/fakes/sipp.ts";
import { SipEndpoint } from "./endpoint.ts";

let endpoint: SipEndpoint;
let peer: Socket;
let inbox: string[];
let waiting: (() => void) | null;

beforeEach(async () => {
  endpoint = await SipEndpoint.start({ host: "127.0.0.1", port: 0, rtp: { ports: { min: 30000, max: 31999 } }, timers: { t1: 20, t2: 80, t4: 100 } });
  peer = createSocket("udp4");
  inbox = [];
  waiting = null;
  peer.on("message", (data) => {
    inbox.push(data.toString("latin1"));
    waiting?.();
  });
  await new Promise<void>((resolve) => peer.bind(0, "127.0.0.1", () => resolve()));
});

afterEach(async () => {
  peer.close();
  await endpoint.close();
});

const send = (text: string) => peer.send(Buffer.from(text.replace(/\n/g, "\r\n"), "latin1"), endpoint.port, "127.0.0.1");

/** Waits for a message matching `pattern` (already received or arriving within `ms`). */
async function expectMessage(pattern: RegExp, ms = 2000): Promise<string> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = inbox.find((m) => pattern.test(m));
    if (found) return found;
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`No message matching ${pattern}; got:\n${inbox.join("\n---\n")}`);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, left);
      waiting = () => (clearTimeout(timer), resolve());
    });
  }
}

/** Waits until `check` holds (answers over loopback are quick, but the machine may be busy). */
async function eventually(check: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
}

const count = (pattern: RegExp) => inbox.filter((m) => pattern.test(m)).length;
/** Answers to distinct requests (a final answer to an INVITE is retransmitted until ACKed). */
const answered = (pattern: RegExp) => new Set(inbox.filter((m) => pattern.test(m)).map((m) => /Call-ID: (\S+)/.exec(m)?.[1])).size;

let n = 0;
function request(method: string, options: { body?: string; headers?: string; cseqMethod?: string; toTag?: string } = {}) {
  n += 1;
  const port = peer.address().port;
  const body = options.body ?? "";
  return `${method} sip:agent@127.0.0.1:${endpoint.port} SIP/2.0
Via: SIP/2.0/UDP 127.0.0.1:${port};branch=z9hG4bKtest${n}
From: <sip:tester@127.0.0.1:${port}>;tag=from${n}
To: <sip:agent@127.0.0.1>${options.toTag ? `;tag=${options.toTag}` : ""}
Call-ID: call${n}@test
CSeq: 1 ${options.cseqMethod ?? method}
Contact: <sip:tester@127.0.0.1:${port}>
Max-Forwards: 70
${options.headers ?? ""}${body ? "Content-Type: application/sdp\n" : ""}Content-Length: ${Buffer.byteLength(body.replace(/\n/g, "\r\n"))}

${body}`;
}

const offer = (m = "m=audio 40000 RTP/AVP 0 101\na=rtpmap:101 telephone-event/8000") => `v=0
o=- 1 1 IN IP4 127.0.0.1
s=-
c=IN IP4 127.0.0.1
t=0 0
${m}
`;

describe("requests it does not take", () => {
  it("answers OPTIONS with 200 and what it allows", async () => {
    send(request("OPTIONS"));
    expect(await expectMessage(/^SIP\/2\.0 200/)).toMatch(/Allow: INVITE, ACK, CANCEL, BYE, OPTIONS, INFO/);
  });

  it("answers an unknown method with 501 and a known one it does not take with 405", async () => {
    send(request("FROBNICATE"));
    await expectMessage(/^SIP\/2\.0 501 .*\r\n[\s\S]*CSeq: 1 FROBNICATE/);
    send(request("SUBSCRIBE"));
    expect(await expectMessage(/^SIP\/2\.0 405/)).toMatch(/Allow: /);
  });

  it("answers BYE for a call it does not know with 481, and an offer it cannot take with 488", async () => {
    send(request("BYE", { toTag: "nosuch" }));
    await expectMessage(/^SIP\/2\.0 481/);
    send(request("INVITE", { body: offer("m=audio 40000 RTP/AVP 18\na=rtpmap:18 G729/8000") }));
    await expectMessage(/^SIP\/2\.0 488/);
    send(request("INVITE", { body: "this is not SDP" }));
    await eventually(() => answered(/^SIP\/2\.0 488/) >= 2);
    expect(answered(/^SIP\/2\.0 488/)).toBe(2);
  });
});

describe("bursts over UDP", () => {
  it("answers every request of a burst that arrives while it is busy (200 callers hanging up at once)", async () => {
    // Our own socket must not be the one dropping the answers.
    peer.setRecvBufferSize(4 * 1024 * 1024);
    const burst = 1500;
    // Sent in one go: the endpoint reads nothing until all of it waits in its socket.
    for (let i = 0; i < burst; i += 1) send(request("OPTIONS"));
    await eventually(() => answered(/^SIP\/2\.0 200 OK/) === burst, 10_000);
    expect(answered(/^SIP\/2\.0 200 OK/)).toBe(burst);
  });
});

describe("broken messages", () => {
  it("answers 400 where it can, drops what it cannot, and still answers the next call", async () => {
    send("\u0000\u0001garbage\r\n\r\n");
    send("INVITE sip:x SIP/2.0\r\n\r\n"); // no Via, From, To, Call-ID or CSeq: nowhere to answer
    send(request("OPTIONS", { cseqMethod: "INVITE" })); // CSeq's method is not the request's
    await expectMessage(/^SIP\/2\.0 400/);
    send(request("OPTIONS", { headers: "Content-Length: abc\n" }));
    send(request("OPTIONS", { headers: `X-Huge: ${"a".repeat(60_000)}\n` })); // within a datagram, so parsed and answered
    send(request("OPTIONS", { headers: `${"X-Many: 1\n".repeat(400)}` }));
    send(request("OPTIONS", { headers: "Bad Header Without Colon\n" }));
    send(request("INVITE", { body: offer("m=audio notaport RTP/AVP 0") }));
    send(request("INVITE", { headers: "Require: 100rel, timer\n", body: offer() }));
    // Session timers (RFC 4028) are ours to take; reliable provisionals are not.
    await expectMessage(/^SIP\/2\.0 420[\s\S]*Unsupported: 100rel\r\n/);
    await eventually(() => answered(/^SIP\/2\.0 400/) >= 4 && answered(/^SIP\/2\.0 (200|488)/) >= 2);
    await new Promise((r) => setTimeout(r, 100));
    // The OPTIONS with a huge header is still a well-formed message within a datagram: answered.
    expect(answered(/^SIP\/2\.0 200/)).toBe(1);
    // CSeq, Content-Length, too many lines, a line without a colon.
    expect(answered(/^SIP\/2\.0 400/)).toBe(4);
    expect(answered(/^SIP\/2\.0 488/)).toBe(1);

    endpoint.on("call", (call) => void call.answer());
    const run = await runSipp({ target: `127.0.0.1:${endpoint.port}`, scenario: "uac" });
    expect(run.code, run.log).toBe(0);
  });
});

describe("broken streams over TCP", () => {
  const tcp = async (bytes: string) => {
    const socket = connect(endpoint.port, "127.0.0.1");
    let received = "";
    socket.on("data", (d: Buffer) => void (received += d.toString("latin1")));
    const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
    socket.on("error", () => {});
    socket.write(bytes.replace(/\n/g, "\r\n"));
    return { socket, closed, received: () => received };
  };

  it("cuts off a peer whose header never ends or whose framing is lost, and answers the next one", async () => {
    const endless = await tcp(`OPTIONS sip:a@127.0.0.1 SIP/2.0\nX-Long: ${"b".repeat(70_000)}`);
    await endless.closed;
    const unframed = await tcp("OPTIONS sip:a@127.0.0.1 SIP/2.0\nVia: SIP/2.0/TCP 127.0.0.1:1;branch=z9hG4bKx\n\n");
    await unframed.closed; // no Content-Length: over a stream the next message cannot be found
    const good = await tcp(request("OPTIONS").replace("SIP/2.0/UDP", "SIP/2.0/TCP"));
    const end = Date.now() + 2000;
    while (!good.received().startsWith("SIP/2.0 200") && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    expect(good.received()).toMatch(/^SIP\/2\.0 200/);
    good.socket.destroy();
  });
});

describe("retransmission over UDP", () => {
  it("retransmits its 200 OK until the ACK comes, then stops", async () => {
    endpoint.on("call", (call) => void call.answer());
    const invite = request("INVITE", { body: offer() });
    send(invite);
    await expectMessage(/^SIP\/2\.0 100/);
    const ok = await expectMessage(/^SIP\/2\.0 200/);
    // T1 20 ms, then 40, 80: copies keep coming while no ACK does.
    await eventually(() => count(/^SIP\/2\.0 200/) >= 3);
    expect(count(/^SIP\/2\.0 200/)).toBeGreaterThanOrEqual(3);
    const toTag = /To: .*;tag=([^;\r\n]+)/.exec(ok)![1];
    send(invite.replace("INVITE sip", "ACK sip").replace("1 INVITE", "1 ACK").replace(/branch=\S+/, "branch=z9hG4bKack1").replace("To: <sip:agent@127.0.0.1>", `To: <sip:agent@127.0.0.1>;tag=${toTag}`).replace(/Content-Length: \d+[\s\S]*$/, "Content-Length: 0\n\n"));
    await new Promise((r) => setTimeout(r, 100));
    const after = count(/^SIP\/2\.0 200/);
    await new Promise((r) => setTimeout(r, 400));
    expect(count(/^SIP\/2\.0 200/)).toBe(after);
  });

  it("answers a retransmitted INVITE with its last answer, not a second call", async () => {
    let calls = 0;
    endpoint.on("call", (call) => ((calls += 1), call.ring()));
    const invite = request("INVITE", { body: offer() });
    send(invite);
    await expectMessage(/^SIP\/2\.0 180/);
    send(invite);
    await eventually(() => count(/^SIP\/2\.0 180/) >= 2);
    await new Promise((r) => setTimeout(r, 100));
    expect(count(/^SIP\/2\.0 180/)).toBe(2);
    expect(calls).toBe(1);
  });

  it("hanging up and waiting (hungUp) settles only once the far end answered the BYE, retransmitted till then", async () => {
    const call = await endpoint.call({ uri: `sip:agent@127.0.0.1:${peer.address().port}` });
    const invite = await expectMessage(/^INVITE /);
    const header = (name: string, text: string) => new RegExp(`^${name}: .*$`, "mi").exec(text)![0];
    const answer = (text: string, extra = "", body = "") =>
      `SIP/2.0 200 OK\n${header("Via", text)}\n${header("From", text)}\n${header("To", text)}${/^To: .*;tag=/im.test(text) ? "" : ";tag=far"}\n${header("Call-ID", text)}\n${header("CSeq", text)}\n${extra}Content-Length: ${Buffer.byteLength(body.replace(/\n/g, "\r\n"))}\n\n${body}`;
    const sdp = offer(`m=audio ${peer.address().port + 2} RTP/AVP 0`);
    send(answer(invite, `Contact: <sip:agent@127.0.0.1:${peer.address().port}>\nContent-Type: application/sdp\n`, sdp));
    await expectMessage(/^ACK /);
    let settled = false;
    const hungUp = call.hungUp().finally(() => (settled = true));
    // The first BYE is "lost": no answer until a copy of it comes.
    await eventually(() => count(/^BYE /) >= 2);
    expect(count(/^BYE /)).toBeGreaterThanOrEqual(2);
    expect(settled).toBe(false);
    send(answer(inbox.find((m) => m.startsWith("BYE "))!));
    expect(await hungUp).toBe(true);
    expect(call.state).toBe("ended");
  });

  it("retransmits a refusal by Timer G until its ACK, and gives up by Timer H when none comes", async () => {
    endpoint.on("call", (call) => call.reject(486));
    send(request("INVITE", { body: offer() }));
    await expectMessage(/^SIP\/2\.0 486/);
    // Timer H: 64·T1 = 1.28 s; Timer G doubles from 20 ms to T2 (80 ms): about 17 copies by then.
    await new Promise((r) => setTimeout(r, 1600));
    const total = count(/^SIP\/2\.0 486/);
    expect(total).toBeGreaterThan(5);
    await new Promise((r) => setTimeout(r, 400));
    expect(count(/^SIP\/2\.0 486/)).toBe(total);
  });
});
