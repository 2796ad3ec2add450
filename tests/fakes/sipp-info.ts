/**
 * A trunk that calls in and, once answered, presses keys by SIP INFO: "4" as application/dtmf-relay
 * (Signal=), "2" as application/dtmf, then an INFO of another kind (which must get 415), then hangs up.
 */
import { cdata, inDialog, placeCall, scenario } from "./sipp-scenarios.ts";

const info = (cseq: number, type: string, body: string) =>
  inDialog("INFO", cseq).replace("Content-Length: 0\n\n", `Content-Type: ${type}\nContent-Length: [len]\n\n${body}`);

export const keysByInfo = (talkMs: number) =>
  scenario(
    "info-digits",
    `${placeCall()}
  <pause milliseconds="500"/>
  <send retrans="500">${cdata(info(2, "application/dtmf-relay", "Signal=4\nDuration=160\n"))}</send>
  <recv response="200"/>
  <pause milliseconds="250"/>
  <send retrans="500">${cdata(info(3, "application/dtmf", "2"))}</send>
  <recv response="200"/>
  <send retrans="500">${cdata(info(4, "application/media_control+xml", "<media_control/>"))}</send>
  <recv response="415"/>
  <pause milliseconds="${talkMs}"/>
  <send retrans="500">${cdata(inDialog("BYE", 5))}</send>
  <recv response="200"/>`,
  );
