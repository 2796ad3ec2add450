/**
 * Callers that ask for session timers (RFC 4028) in their INVITE: one that leaves the refreshing
 * to us (refresher=uas) and takes our UPDATEs, one that says it refreshes (refresher=uac) and never
 * does, so we must end the call with BYE, and one that asks for too short an interval (422); and a
 * trunk that answers our call asking us to refresh.
 */
import { ackRefusal, answerWithSdp, cdata, inDialog, invite, ok, scenario, sdp } from "./sipp-scenarios.ts";

const timed = (cseq: number, sessionExpires: string, allow = "INVITE, ACK, CANCEL, BYE, UPDATE") =>
  invite(cseq).replace("Max-Forwards: 70\n", `Max-Forwards: 70\nSupported: timer\nSession-Expires: ${sessionExpires}\nAllow: ${allow}\n`);

const answered = (sessionExpires: string, allow?: string) => `<send retrans="500">${cdata(timed(1, sessionExpires, allow))}</send>
  <recv response="100" optional="true"/>
  <recv response="180" optional="true"/>
  <recv response="200">
    <action>
      <ereg regexp="^ *${sessionExpires.replace(/[.+]/g, "\\$&")} *$" search_in="hdr" header="Session-Expires:" check_it="true" assign_to="se"/>
      <ereg regexp="timer" search_in="hdr" header="Require:" check_it="true" assign_to="req"/>
    </action>
  </recv>
  <send>${cdata(inDialog("ACK", 1))}</send>`;

/** The 200 to our refresh: the interval again, and for a re-INVITE the SDP answer. */
const refreshOk = (seconds: number, withSdp: boolean) =>
  ok.replace("Content-Length: 0\n\n", `Session-Expires: ${seconds};refresher=uac\n${withSdp ? `Content-Type: application/sdp\nContent-Length: [len]\n\n${sdp()}\n` : "Content-Length: 0\n\n"}`);

/**
 * We refresh every half interval, with Session-Expires and refresher=uac: by UPDATE when the caller
 * allows it, else by re-INVITE (ACKed); SIPp takes `refreshes` of them, then hangs up.
 */
export const refreshedByUs = (seconds: number, refreshes: number, by: "UPDATE" | "INVITE" = "UPDATE") =>
  scenario(
    "session-refreshed",
    `${answered(`${seconds};refresher=uas`, by === "UPDATE" ? undefined : "INVITE, ACK, CANCEL, BYE")}
  ${Array.from(
    { length: refreshes },
    (_, i) => `<recv request="${by}" timeout="${seconds * 1000}">
    <action><ereg regexp="^ *${seconds};refresher=uac *$" search_in="hdr" header="Session-Expires:" check_it="true" assign_to="up${i}"/></action>
  </recv>
  <send>${cdata(refreshOk(seconds, by === "INVITE"))}</send>${by === "INVITE" ? `
  <recv request="ACK"/>` : ""}`,
  ).join("\n  ")}
  <send retrans="500">${cdata(inDialog("BYE", 2))}</send>
  <recv response="200"/>
  <Reference variables="se,req,${Array.from({ length: refreshes }, (_, i) => `up${i}`).join(",")}"/>`,
  );

/** SIPp says it refreshes, and never does: our BYE must come before the interval runs out. */
export const neverRefreshed = (seconds: number) =>
  scenario(
    "session-expired",
    `${answered(`${seconds};refresher=uac`)}
  <recv request="BYE" timeout="${seconds * 1000}"/>
  <send>${cdata(ok)}</send>
  <Reference variables="se,req"/>`,
  );

/** An interval below our Min-SE: 422 saying the least we take, ACKed. */
export const tooBrief = (seconds: number, minSE: number) =>
  scenario(
    "session-too-brief",
    `<send retrans="500">${cdata(timed(1, String(seconds)))}</send>
  <recv response="100" optional="true"/>
  <recv response="422">
    <action><ereg regexp="^ *${minSE} *$" search_in="hdr" header="Min-SE:" check_it="true" assign_to="minse"/></action>
  </recv>
  <send>${cdata(ackRefusal(1))}</send>
  <Reference variables="minse"/>`,
  );

/**
 * A trunk that answers our INVITE (which must offer session timers) with `Session-Expires: 2;
 * refresher=uac`: we refresh with UPDATE within 2 s, it answers, and then takes our BYE.
 */
export const trunkWantsRefreshes = scenario(
  "session-outbound",
  `<recv request="INVITE">
    <action>
      <ereg regexp="timer" search_in="hdr" header="Supported:" check_it="true" assign_to="sup"/>
      <ereg regexp="^ *1800 *$" search_in="hdr" header="Session-Expires:" check_it="true" assign_to="offered"/>
    </action>
  </recv>
  <send retrans="500">${cdata(answerWithSdp.replace("Content-Type: application/sdp", "Session-Expires: 2;refresher=uac\nRequire: timer\nAllow: INVITE, ACK, CANCEL, BYE, UPDATE\nContent-Type: application/sdp"))}</send>
  <recv request="ACK"/>
  <recv request="UPDATE" timeout="2000">
    <action><ereg regexp="^ *2;refresher=uac *$" search_in="hdr" header="Session-Expires:" check_it="true" assign_to="refresh"/></action>
  </recv>
  <send>${cdata(refreshOk(2, false))}</send>
  <recv request="BYE"/>
  <send>${cdata(ok)}</send>
  <Reference variables="sup,offered,refresh"/>`,
);
