/**
 * SIPp as a trunk's registrar (RFC 3261 §10.3): it takes our REGISTERs, challenges each with 401,
 * checks the digest answer (MD5, SIPp's verifyauth) and grants a short Expires, so the refreshes
 * come within the test. SIPp keys a scenario's messages by Call-ID: a REGISTER with another
 * Call-ID than the first would not reach this scenario, and the run would fail.
 */
import { answerAs, cdata, scenario } from "./sipp-scenarios.ts";

const answer = (status: string, extra = "") => answerAs(status, extra, false);

const challenge = (algorithm: "MD5" | "SHA-256") =>
  answer("401 Unauthorized", `WWW-Authenticate: Digest realm="registrar.test", nonce="4f1c9a7e[call_number]", algorithm=${algorithm}, qop="auth"\n`);

/** A 200 that binds our Contact for `expiresS`, said as our Contact's parameter (§10.3 step 8). */
const bound = (expiresS: number) => answer("200 OK", `[last_Contact:];expires=${expiresS}\nDate: Sat, 28 Nov 2026 10:00:00 GMT\n`);

const scheme = (aor: string) => (aor.startsWith("sips:") ? "sips" : "sip");

const escape = (text: string) => text.replace(/[.+]/g, "\\$&").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/**
 * What every REGISTER of ours must say (§10.2): the AOR in To and From, our Contact, the Expires.
 * A sips: AOR (a registrar reached over TLS) asks for a sips: Request-URI and Contact (§8.1.1.8).
 */
const checks = (aor: string, expires: string, n: number) => `<action>
      <ereg regexp="^REGISTER ${scheme(aor)}:127\\.0\\.0\\.1:[0-9]+ SIP/2\\.0" search_in="msg" check_it="true" assign_to="line${n}"/>
      <ereg regexp="${escape(`<${aor}>`)}$" search_in="hdr" header="To:" check_it="true" assign_to="to${n}"/>
      <ereg regexp="${escape(`<${aor}>`)};tag=" search_in="hdr" header="From:" check_it="true" assign_to="from${n}"/>
      <ereg regexp="&lt;${scheme(aor)}:trunkuser@127\\.0\\.0\\.1:[0-9]+&gt;" search_in="hdr" header="Contact:" check_it="true" assign_to="contact${n}"/>
      <ereg regexp="^ *${expires} *$" search_in="hdr" header="Expires:" check_it="true" assign_to="expires${n}"/>
    </action>`;

/** One REGISTER challenged, its answer checked (`password`), then bound for `expiresS` or refused 403. */
const round = (n: number, aor: string, expires: string, expiresS: number, password: string) => `
  <recv request="REGISTER">${checks(aor, expires, n)}</recv>
  <send>${cdata(challenge("MD5"))}</send>
  <recv request="REGISTER">
    <action><verifyauth assign_to="auth${n}" username="trunkuser" password="${password}"/></action>
  </recv>
  <nop hide="true" test="auth${n}" next="good${n}"/>
  <send>${cdata(answer("403 Forbidden"))}</send>
  <nop hide="true" next="end"/>
  <label id="good${n}"/>
  <send>${cdata(bound(expiresS))}</send>
  <Reference variables="line${n},to${n},from${n},contact${n},expires${n}"/>`;

/**
 * A registrar that binds us `refreshes` + 1 times for `grantS` (2 s: we refresh every second),
 * then takes the REGISTER that removes the binding (Expires: 0), challenged as the others.
 */
export const registrar = (options: { aor: string; expires: number; refreshes: number; grantS?: number; password?: string }) =>
  scenario(
    "registrar",
    `${Array.from({ length: options.refreshes + 1 }, (_, i) => round(i, options.aor, String(options.expires), options.grantS ?? 2, options.password ?? "s3cret")).join("\n")}
  ${round(options.refreshes + 1, options.aor, "0", 0, options.password ?? "s3cret")}
  <label id="end"/>`,
  );

/** A registrar whose 401 must be answered with the password `password`; a wrong answer gets 403 and the run ends. */
export const refusingRegistrar = (aor: string, expires: number) =>
  scenario(
    "refusing-registrar",
    `${round(0, aor, String(expires), 2, "the-real-one")}
  <label id="end"/>`,
  );

/** A registrar that is down the first time (503), binds us the second, and takes our leaving. */
export const registrarDownThenUp = scenario(
  "registrar-down",
  `<recv request="REGISTER"/>
  <send>${cdata(answer("503 Service Unavailable"))}</send>
  <recv request="REGISTER"/>
  <send>${cdata(bound(3600))}</send>
  <recv request="REGISTER"/>
  <send>${cdata(answer("200 OK"))}</send>`,
);

/** A registrar that asks for SHA-256 (RFC 8760); the test checks the answer from SIPp's trace. */
export const sha256Registrar = scenario(
  "registrar-sha256",
  `<recv request="REGISTER"/>
  <send>${cdata(challenge("SHA-256"))}</send>
  <recv request="REGISTER">
    <action><ereg regexp="algorithm=SHA-256" search_in="hdr" header="Authorization:" check_it="true" assign_to="alg"/></action>
  </recv>
  <send>${cdata(bound(3600))}</send>
  <Reference variables="alg"/>`,
);

/** A registrar that finds 600 s too brief (423, Min-Expires: 900), binds the REGISTER asking 900, and takes our leaving. */
export const registrarWantsLonger = scenario(
  "registrar-423",
  `<recv request="REGISTER"/>
  <send>${cdata(answer("423 Interval Too Brief", "Min-Expires: 900\n"))}</send>
  <recv request="REGISTER">
    <action><ereg regexp="^ *900 *$" search_in="hdr" header="Expires:" check_it="true" assign_to="longer"/></action>
  </recv>
  <send>${cdata(answer("200 OK", "[last_Contact:]\nExpires: 900\n"))}</send>
  <recv request="REGISTER"/>
  <send>${cdata(answer("200 OK"))}</send>
  <Reference variables="longer"/>`,
);
