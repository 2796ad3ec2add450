/**
 * SIPp scenarios the SIP tests drive (SIPp's XML: `[keyword]`s are filled in by SIPp per call).
 * Each is a far end that behaves as a trunk or phone does; SIPp fails the call, and exits 1, on
 * any answer other than the ones written here.
 */

export const sdp = (direction = "sendrecv") => `v=0
o=user1 53655765 2353687637 IN IP[local_ip_type] [local_ip]
s=-
c=IN IP[media_ip_type] [media_ip]
t=0 0
m=audio [media_port] RTP/AVP 0 8 101
a=rtpmap:0 PCMU/8000
a=rtpmap:8 PCMA/8000
a=rtpmap:101 telephone-event/8000
a=fmtp:101 0-16
a=ptime:20
a=${direction}`;

export const invite = (cseq: number, extra = "", direction = "sendrecv") => `
INVITE sip:[service]@[remote_ip]:[remote_port] SIP/2.0
Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
${extra.includes("proxied") ? "Record-Route: <sip:proxy@[local_ip]:[local_port];lr>\n" : ""}From: "Caller" <sip:+15550001111@[local_ip]:[local_port]>;tag=[pid]SIPpTag00[call_number]
To: <sip:[service]@[remote_ip]:[remote_port]>${cseq > 1 && extra.includes("dialog") ? "[peer_tag_param]" : ""}
Call-ID: [call_id]
CSeq: ${cseq} INVITE
Contact: <sip:sipp@[local_ip]:[local_port];transport=[transport]>
Max-Forwards: 70
${extra.includes("auth") ? "[authentication username=trunkuser password=s3cret]\n" : ""}Content-Type: application/sdp
Content-Length: [len]

${sdp(direction)}
`;

export const inDialog = (method: string, cseq: number) => `
${method} sip:[service]@[remote_ip]:[remote_port] SIP/2.0
Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
From: "Caller" <sip:+15550001111@[local_ip]:[local_port]>;tag=[pid]SIPpTag00[call_number]
To: <sip:[service]@[remote_ip]:[remote_port]>[peer_tag_param]
Call-ID: [call_id]
CSeq: ${cseq} ${method}
Contact: <sip:sipp@[local_ip]:[local_port];transport=[transport]>
Max-Forwards: 70
Content-Length: 0

`;

export const ok = `
SIP/2.0 200 OK
[last_Via:]
[last_From:]
[last_To:]
[last_Call-ID:]
[last_CSeq:]
Content-Length: 0

`;

export const scenario = (name: string, body: string) => `<?xml version="1.0" encoding="ISO-8859-1" ?>
<!DOCTYPE scenario SYSTEM "sipp.dtd">
<scenario name="${name}">
${body}
</scenario>
`;

export const cdata = (text: string) => `<![CDATA[${text}]]>`;

/** Our INVITE (CSeq `cseq`, `extra` as for invite) answered 200 after any 100 and 180, and ACKed. */
export const placeCall = (cseq = 1, extra = "") => `<send retrans="500">${cdata(invite(cseq, extra))}</send>
  <recv response="100" optional="true"/>
  <recv response="180" optional="true"/>
  <recv response="200"/>
  <send>${cdata(inDialog("ACK", cseq))}</send>`;

const cancel = (branch: string) => `
CANCEL sip:[service]@[remote_ip]:[remote_port] SIP/2.0
Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[${branch}]
From: "Caller" <sip:+15550001111@[local_ip]:[local_port]>;tag=[pid]SIPpTag00[call_number]
To: <sip:[service]@[remote_ip]:[remote_port]>
Call-ID: [call_id]
CSeq: 1 CANCEL
Max-Forwards: 70
Content-Length: 0

`;

/**
 * The ACK of a final refusal of the first INVITE (its own transaction's, §17.1.1.3): a 401, 422
 * or 503, or the 487 of a cancelled one; `back` counts the messages back to that INVITE.
 */
export const ackRefusal = (cseq: number, back = 3) => `
ACK sip:[service]@[remote_ip]:[remote_port] SIP/2.0
Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch-${back}]
From: "Caller" <sip:+15550001111@[local_ip]:[local_port]>;tag=[pid]SIPpTag00[call_number]
[last_To:]
Call-ID: [call_id]
CSeq: ${cseq} ACK
Max-Forwards: 70
Content-Length: 0

`;

/** The caller gives up while it rings: CANCEL, 200 for it, 487 for the INVITE, which is ACKed. */
export const cancelWhileRinging = scenario(
  "cancel",
  `<send retrans="500">${cdata(invite(1))}</send>
  <recv response="100" optional="true"/>
  <recv response="180"/>
  <send>${cdata(cancel("branch-3"))}</send>
  <recv response="200"/>
  <recv response="487"/>
  <send>${cdata(ackRefusal(1, 6))}</send>`,
);

/**
 * The caller gives up as soon as the server is trying (its 100), before a server that answers as
 * soon as it can has answered: CANCEL, 200 for it, 487 for the INVITE, which is ACKed.
 */
export const cancelAtOnce = scenario(
  "cancel-at-once",
  // SIPp takes a message that arrives while it sends as one of the steps before, if optional: the
  // first 180 step is there for a 180 that comes while the CANCEL goes out.
  `<send>${cdata(invite(1))}</send>
  <recv response="180" optional="true"/>
  <recv response="100"/>
  <send>${cdata(cancel("branch-3"))}</send>
  <recv response="180" optional="true"/>
  <recv response="200"/>
  <recv response="487"/>
  <send>${cdata(ackRefusal(1, 7))}</send>`,
);

/** An INVITE challenged with 401, sent again with SIPp's digest answer, then a normal call. */
export const authenticatedCall = scenario(
  "auth",
  `<send retrans="500">${cdata(invite(1))}</send>
  <recv response="100" optional="true"/>
  <recv response="401" auth="true"/>
  <send>${cdata(ackRefusal(1))}</send>
  ${placeCall(2, "auth")}
  <pause milliseconds="200"/>
  <send retrans="500">${cdata(inDialog("BYE", 3))}</send>
  <recv response="200"/>`,
);

/** A call put on hold by a re-INVITE (a=sendonly), whose answer must say a=recvonly. */
export const holdByReinvite = scenario(
  "reinvite",
  `${placeCall()}
  <pause milliseconds="100"/>
  <send retrans="500">${cdata(invite(2, "dialog", "sendonly"))}</send>
  <recv response="100" optional="true"/>
  <recv response="200">
    <action><ereg regexp="a=recvonly" search_in="body" check_it="true" assign_to="held"/></action>
  </recv>
  <send>${cdata(inDialog("ACK", 2))}</send>
  <pause milliseconds="100"/>
  <send retrans="500">${cdata(inDialog("BYE", 3))}</send>
  <recv response="200"/>
  <Reference variables="held"/>`,
);

/**
 * A call we end, through a proxy that asked to stay in the path (Record-Route): our 200 must
 * carry the Record-Route back, and our BYE must go to the proxy with a Route header naming it.
 * SIPp plays the proxy and the phone at once.
 */
export const waitForBye = scenario(
  "remote-bye",
  `<send retrans="500">${cdata(invite(1, "proxied"))}</send>
  <recv response="100" optional="true"/>
  <recv response="180" optional="true"/>
  <recv response="200">
    <action><ereg regexp="sip:proxy@" search_in="hdr" header="Record-Route:" check_it="true" assign_to="rr"/></action>
  </recv>
  <send>${cdata(inDialog("ACK", 1))}</send>
  <recv request="BYE">
    <action><ereg regexp="&lt;sip:proxy@[^&gt;]*;lr&gt;" search_in="hdr" header="Route:" check_it="true" assign_to="route"/></action>
  </recv>
  <send>${cdata(ok)}</send>
  <Reference variables="rr,route"/>`,
);

/** A final answer of the far end's; `contact` false leaves its Contact out (a registrar's 200 lists the bindings instead). */
export const answerAs = (status: string, headers = "", contact = true) => `
SIP/2.0 ${status}
[last_Via:]
[last_From:]
[last_To:];tag=[pid]SIPpTag01[call_number]
[last_Call-ID:]
[last_CSeq:]
${contact ? "Contact: <sip:trunk@[local_ip]:[local_port];transport=[transport]>\n" : ""}${headers}Content-Length: 0

`;

/** The trunk's 200 OK with its SDP answer (the same dialog as `answerAs`). */
export const answerWithSdp = `
SIP/2.0 200 OK
[last_Via:]
[last_From:]
[last_To:];tag=[pid]SIPpTag01[call_number]
[last_Call-ID:]
[last_CSeq:]
Contact: <sip:trunk@[local_ip]:[local_port];transport=[transport]>
Content-Type: application/sdp
Content-Length: [len]

${sdp()}
`;

/** A trunk that answers our INVITE with `status` (486 Busy Here, 404 Not Found, ...). */
export const refuseWith = (status: string) =>
  scenario(
    "refuse",
    `<recv request="INVITE"/>
  <send>${cdata(answerAs(status))}</send>
  <recv request="ACK"/>`,
  );

/** A trunk that answers our call at once and takes our BYE (SIPp's own `uas` lingers 4 s after). */
export const answerThenBye = scenario(
  "answer",
  `<recv request="INVITE"/>
  <send>${cdata(answerAs("180 Ringing"))}</send>
  <send retrans="500">${cdata(answerWithSdp)}</send>
  <recv request="ACK"/>
  <recv request="BYE"/>
  <send>${cdata(ok)}</send>`,
);

/** A trunk that wants our credentials first (401), then answers and takes our BYE. */
export const challengeThenAnswer = scenario(
  "challenge",
  `<recv request="INVITE"/>
  <send>${cdata(answerAs("401 Unauthorized", 'WWW-Authenticate: Digest realm="trunk.test", nonce="b7e1c2d3", algorithm=MD5\n'))}</send>
  <recv request="ACK"/>
  <recv request="INVITE">
    <action><verifyauth assign_to="authvalid" username="trunkuser" password="s3cret"/></action>
  </recv>
  <nop hide="true" test="authvalid" next="good"/>
  <send>${cdata(answerAs("403 Forbidden"))}</send>
  <recv request="ACK" next="end"/>
  <label id="good"/>
  <send>${cdata(answerWithSdp)}</send>
  <recv request="ACK"/>
  <recv request="BYE"/>
  <send>${cdata(ok)}</send>
  <label id="end"/>`,
);

/** A caller refused at once with `status` (503 for a full server must say Retry-After). */
export const refusedWith = (status: string, requiredHeader?: string) =>
  scenario(
    "refused",
    `<send retrans="500">${cdata(invite(1))}</send>
  <recv response="100" optional="true"/>
  <recv response="${status}">${requiredHeader ? `<action><ereg regexp="[0-9]+" search_in="hdr" header="${requiredHeader}:" check_it="true" assign_to="hdr"/></action>` : ""}</recv>
  <send>${cdata(ackRefusal(1))}</send>${requiredHeader ? `\n  <Reference variables="hdr"/>` : ""}`,
  );

/** A caller challenged with 401 whose digest answer (password `password`) is refused with 403. */
export const challengedThenRefused = (password: string) =>
  scenario(
    "auth-refused",
    `<send retrans="500">${cdata(invite(1))}</send>
  <recv response="100" optional="true"/>
  <recv response="401" auth="true"/>
  <send>${cdata(ackRefusal(1))}</send>
  <send retrans="500">${cdata(invite(2, "auth").replace("password=s3cret", `password=${password}`))}</send>
  <recv response="100" optional="true"/>
  <recv response="403"/>
  <send>${cdata(ackRefusal(2))}</send>`,
  );

// ── A trunk that takes our calls out (SIPp as the UAS) ───────────────────────────────────────

/** Keeps, from our INVITE, what the trunk's own requests inside the call need: our Contact and our tag. */
const keepDialog = `<action>
      <ereg regexp="sip:[^>;]*" search_in="hdr" header="Contact:" check_it="true" assign_to="ourcontact"/>
      <ereg regexp="tag=[^;>[:space:]]*" search_in="hdr" header="From:" check_it="true" assign_to="ourtag"/>
    </action>`;

/** A request of the trunk's inside the call we placed (BYE, NOTIFY), to our Contact. */
const trunkRequest = (method: string, cseq: number, extra = "", body = "") => `
${method} [$ourcontact] SIP/2.0
Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
From: <sip:trunk@[local_ip]:[local_port]>;tag=[pid]SIPpTag01[call_number]
To: <sip:switchboard@[remote_ip]:[remote_port]>;[$ourtag]
Call-ID: [call_id]
CSeq: ${cseq} ${method}
Contact: <sip:trunk@[local_ip]:[local_port];transport=[transport]>
Max-Forwards: 70
${extra}Content-Length: ${Buffer.byteLength(body)}

${body}`;

/**
 * The INVITE answered with a digest challenge, then the one that must carry our answer. SIPp
 * checks a 401's answer (Authorization) itself; of a 407's (Proxy-Authorization, which its
 * verifyauth does not read) it checks the user and that a response is there.
 */
const challenged = (status: "401" | "407") => `<recv request="INVITE"/>
  <send>${cdata(
    answerAs(
      status === "401" ? "401 Unauthorized" : "407 Proxy Authentication Required",
      `${status === "401" ? "WWW-Authenticate" : "Proxy-Authenticate"}: Digest realm="trunk.test", nonce="b7e1c2d3", algorithm=MD5\n`,
    ),
  )}</send>
  <recv request="ACK"/>
  <recv request="INVITE">
    ${keepDialog.replace(
      "</action>",
      status === "401"
        ? `  <verifyauth assign_to="authvalid" username="trunkuser" password="s3cret"/>\n    </action>`
        : `  <ereg regexp="Digest .*username=&quot;trunkuser&quot;.*response=&quot;[0-9a-f]{32}&quot;" search_in="hdr" header="Proxy-Authorization:" check_it="true" assign_to="proxyauth"/>\n    </action>`,
    )}
  </recv>
  ${status === "401" ? `<nop hide="true" test="authvalid" next="good"/>
  <send>${cdata(answerAs("403 Forbidden"))}</send>
  <recv request="ACK" next="end"/>` : `<Reference variables="proxyauth"/>`}
  <label id="good"/>`;

/**
 * A trunk that challenges our INVITE (`status`), answers the one with the right credentials,
 * lets the call run `talkMs`, and hangs up (the callee puts the phone down).
 */
export const challengeAnswerHangUp = (status: "401" | "407", talkMs: number) =>
  scenario(
    "challenge-answer-bye",
    `${challenged(status)}
  <send>${cdata(answerWithSdp)}</send>
  <recv request="ACK"/>
  <pause milliseconds="${talkMs}"/>
  <send retrans="500">${cdata(trunkRequest("BYE", 1))}</send>
  <recv response="200"/>
  <label id="end"/>`,
  );

const sipfrag = (status: string) => `SIP/2.0 ${status}\r\n`;

/**
 * A trunk that answers our call and, asked to transfer it (REFER to `referTo`), accepts (202) and
 * reports the destination answered (NOTIFY, sipfrag 200), then takes our BYE. Run with
 * `-rtp_echo`, so the assistant hears its own greeting back as the callee's speech.
 */
export const answerAndAcceptRefer = (referTo: string) =>
  scenario(
    "refer-accepted",
    `<recv request="INVITE">${keepDialog}</recv>
  <send>${cdata(answerWithSdp)}</send>
  <recv request="ACK"/>
  <recv request="REFER" timeout="20000">
    <action><ereg regexp="${referTo.replace(/[+.]/g, "\\$&")}" search_in="hdr" header="Refer-To:" check_it="true" assign_to="target"/></action>
  </recv>
  <send>${cdata(answerAs("202 Accepted").replace(";tag=[pid]SIPpTag01[call_number]", ""))}</send>
  <send retrans="500">${cdata(trunkRequest("NOTIFY", 1, "Event: refer\nSubscription-State: terminated;reason=noresource\nContent-Type: message/sipfrag;version=2.0\n", sipfrag("200 OK")))}</send>
  <recv response="200"/>
  <recv request="BYE"/>
  <send>${cdata(ok)}</send>
  <Reference variables="target"/>`,
  );

/**
 * The first INVITE of a two-call run: our call to the trunk is answered (its Contact and tag kept
 * for the BYE); the server's own call to `destination` jumps to the label "destination".
 */
const answerOursOrGoToDestination = (destination: string) => `<recv request="INVITE">
    <action>
      <ereg regexp="sip:[^>;]*" search_in="hdr" header="Contact:" check_it="true" assign_to="ourcontact"/>
      <ereg regexp="tag=[^;>[:space:]]*" search_in="hdr" header="From:" check_it="true" assign_to="ourtag"/>
      <ereg regexp="${destination.replace(/[+.]/g, "\\$&")}@" search_in="hdr" header="To:" check_it="false" assign_to="todestination"/>
    </action>
  </recv>
  <nop hide="true" test="todestination" next="destination"/>
  <send>${cdata(answerWithSdp)}</send>
  <recv request="ACK"/>`;

/** The server's call to the destination, answered `destinationAnswer`; the run ends at the label "end". */
const destinationLeg = (destinationAnswer: string) => `<label id="destination"/>
  <send>${cdata(answerAs(destinationAnswer))}</send>
  <recv request="ACK"/>
  <label id="end"/>
  <Reference variables="ourcontact,ourtag"/>`;

/**
 * A trunk that refuses REFER (`status`, e.g. 405) and, when the server then calls the destination
 * through it itself (a second INVITE, To `destination`), answers that call `destinationAnswer`
 * (486 Busy Here); the callee hangs up after `talkMs`. Two SIPp calls: run with `calls: 2`.
 */
export const refuseReferThenDestination = (status: string, destination: string, destinationAnswer: string, talkMs: number) =>
  scenario(
    "refer-refused-then-destination",
    `${answerOursOrGoToDestination(destination)}
  <recv request="REFER" timeout="20000"/>
  <send>${cdata(answerAs(status, "Allow: INVITE, ACK, CANCEL, BYE\n").replace(";tag=[pid]SIPpTag01[call_number]", ""))}</send>
  <pause milliseconds="${talkMs}"/>
  <send retrans="500">${cdata(trunkRequest("BYE", 2))}</send>
  <recv response="200" next="end"/>
  ${destinationLeg(destinationAnswer)}`,
  );

/**
 * A trunk that answers our call and then, asked for no REFER (one would fail the run), gets a
 * second INVITE from the server itself for the destination (To `destination`), which it answers
 * `destinationAnswer`; the callee hangs up after `talkMs`. Two SIPp calls: run with `calls: 2`.
 */
export const bridgedWithoutRefer = (destination: string, destinationAnswer: string, talkMs: number) =>
  scenario(
    "bridged-without-refer",
    `${answerOursOrGoToDestination(destination)}
  <pause milliseconds="${talkMs}"/>
  <send retrans="500">${cdata(trunkRequest("BYE", 1))}</send>
  <recv response="200" next="end"/>
  ${destinationLeg(destinationAnswer)}`,
  );

/**
 * A trunk that rings our call (180) until we cancel it: CANCEL answered 200, the INVITE 487,
 * which we ACK. SIPp exits 0 only once the CANCEL came.
 */
export const ringUntilCancelled = scenario(
  "ring-until-cancelled",
  `<recv request="INVITE">
    <action><ereg regexp="[0-9]+" search_in="hdr" header="CSeq:" check_it="true" assign_to="inviteseq"/></action>
  </recv>
  <send>${cdata(answerAs("180 Ringing"))}</send>
  <recv request="CANCEL" timeout="20000"/>
  <send>${cdata(answerAs("200 OK"))}</send>
  <send>${cdata(answerAs("487 Request Terminated").replace("[last_CSeq:]", "CSeq: [$inviteseq] INVITE"))}</send>
  <recv request="ACK"/>`,
);
