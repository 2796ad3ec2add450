/**
 * SIPp scenarios the SIP tests drive (SIPp's XML: `[keyword]`s are filled in by SIPp per call).
 * Each is a far end that behaves as a trunk or phone does; SIPp fails the call, and exits 1, on
 * any answer other than the ones written here.
 */

const sdp = (direction = "sendrecv") => `v=0
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

const invite = (cseq: number, extra = "", direction = "sendrecv") => `
INVITE sip:agent@[remote_ip]:[remote_port] SIP/2.0
Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
${extra.includes("proxied") ? "Record-Route: <sip:proxy@[local_ip]:[local_port];lr>\n" : ""}From: "Caller" <sip:+15550001111@[local_ip]:[local_port]>;tag=[pid]SIPpTag00[call_number]
To: <sip:agent@[remote_ip]:[remote_port]>${cseq > 1 && extra.includes("dialog") ? "[peer_tag_param]" : ""}
Call-ID: [call_id]
CSeq: ${cseq} INVITE
Contact: <sip:sipp@[local_ip]:[local_port];transport=[transport]>
Max-Forwards: 70
${extra.includes("auth") ? "[authentication username=trunkuser password=s3cret]\n" : ""}Content-Type: application/sdp
Content-Length: [len]

${sdp(direction)}
`;

const inDialog = (method: string, cseq: number) => `
${method} sip:agent@[remote_ip]:[remote_port] SIP/2.0
Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
From: "Caller" <sip:+15550001111@[local_ip]:[local_port]>;tag=[pid]SIPpTag00[call_number]
To: <sip:agent@[remote_ip]:[remote_port]>[peer_tag_param]
Call-ID: [call_id]
CSeq: ${cseq} ${method}
Contact: <sip:sipp@[local_ip]:[local_port];transport=[transport]>
Max-Forwards: 70
Content-Length: 0

`;

const ok = `
SIP/2.0 200 OK
[last_Via:]
[last_From:]
[last_To:]
[last_Call-ID:]
[last_CSeq:]
Content-Length: 0

`;

const scenario = (name: string, body: string) => `<?xml version="1.0" encoding="ISO-8859-1" ?>
<!DOCTYPE scenario SYSTEM "sipp.dtd">
<scenario name="${name}">
${body}
</scenario>
`;

const cdata = (text: string) => `<![CDATA[${text}]]>`;

/** The caller gives up while it rings: CANCEL, 200 for it, 487 for the INVITE, which is ACKed. */
export const cancelWhileRinging = scenario(
  "cancel",
  `<send retrans="500">${cdata(invite(1))}</send>
  <recv response="100" optional="true"/>
  <recv response="180"/>
  <send>${cdata(`
CANCEL sip:agent@[remote_ip]:[remote_port] SIP/2.0
Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch-3]
From: "Caller" <sip:+15550001111@[local_ip]:[local_port]>;tag=[pid]SIPpTag00[call_number]
To: <sip:agent@[remote_ip]:[remote_port]>
Call-ID: [call_id]
CSeq: 1 CANCEL
Max-Forwards: 70
Content-Length: 0

`)}</send>
  <recv response="200"/>
  <recv response="487"/>
  <send>${cdata(`
ACK sip:agent@[remote_ip]:[remote_port] SIP/2.0
Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch-6]
From: "Caller" <sip:+15550001111@[local_ip]:[local_port]>;tag=[pid]SIPpTag00[call_number]
[last_To:]
Call-ID: [call_id]
CSeq: 1 ACK
Max-Forwards: 70
Content-Length: 0

`)}</send>`,
);

/** An INVITE challenged with 401, sent again with SIPp's digest answer, then a normal call. */
export const authenticatedCall = scenario(
  "auth",
  `<send retrans="500">${cdata(invite(1))}</send>
  <recv response="100" optional="true"/>
  <recv response="401" auth="true"/>
  <send>${cdata(`
ACK sip:agent@[remote_ip]:[remote_port] SIP/2.0
Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch-3]
From: "Caller" <sip:+15550001111@[local_ip]:[local_port]>;tag=[pid]SIPpTag00[call_number]
[last_To:]
Call-ID: [call_id]
CSeq: 1 ACK
Max-Forwards: 70
Content-Length: 0

`)}</send>
  <send retrans="500">${cdata(invite(2, "auth"))}</send>
  <recv response="100" optional="true"/>
  <recv response="180" optional="true"/>
  <recv response="200"/>
  <send>${cdata(inDialog("ACK", 2))}</send>
  <pause milliseconds="200"/>
  <send retrans="500">${cdata(inDialog("BYE", 3))}</send>
  <recv response="200"/>`,
);

/** A call put on hold by a re-INVITE (a=sendonly), whose answer must say a=recvonly. */
export const holdByReinvite = scenario(
  "reinvite",
  `<send retrans="500">${cdata(invite(1))}</send>
  <recv response="100" optional="true"/>
  <recv response="180" optional="true"/>
  <recv response="200"/>
  <send>${cdata(inDialog("ACK", 1))}</send>
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

const answerAs = (status: string, headers = "") => `
SIP/2.0 ${status}
[last_Via:]
[last_From:]
[last_To:];tag=[pid]SIPpTag01[call_number]
[last_Call-ID:]
[last_CSeq:]
Contact: <sip:trunk@[local_ip]:[local_port];transport=[transport]>
${headers}Content-Length: 0

`;

/** The trunk's 200 OK with its SDP answer (the same dialog as `answerAs`). */
const answerWithSdp = `
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
