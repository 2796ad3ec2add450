import { listenerPortFor, sipAddressFor, type SipListener, type SipTrunk } from "@shared/sip-trunks";

export interface ConfigExample {
  id: string;
  title: string;
  text: string;
}

/**
 * What to paste into the PBX or carrier so it sends this trunk's numbers here, filled with the
 * trunk's values. Passwords are never shown again, so each example says where one goes.
 */
export function configExamples(trunk: SipTrunk, listener: SipListener): ConfigExample[] {
  const host = listener.public_address;
  const transport = trunk.transport;
  const port = listenerPortFor(listener, transport);
  const id = `switchboard-${trunk.name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") || "trunk"}`;
  const user = trunk.inbound_username ?? "";
  const number = trunk.numbers[0]?.phone_number ?? "<number>";
  const auth = user
    ? [`[${id}-auth]`, "type=auth", "auth_type=userpass", `username=${user}`, "password=<the inbound password you saved>", ""]
    : [];
  const pjsip = [
    `; /etc/asterisk/pjsip.conf — calls to Switchboard (${trunk.name})`,
    ...auth,
    `[${id}]`,
    "type=aor",
    `contact=sip:${host}:${port}`,
    "qualify_frequency=60",
    "",
    `[${id}]`,
    "type=endpoint",
    `transport=transport-${transport}`,
    "context=from-switchboard",
    "disallow=all",
    "allow=ulaw,alaw",
    "dtmf_mode=rfc4733",
    "direct_media=no",
    `aors=${id}`,
    ...(user ? [`outbound_auth=${id}-auth`] : []),
    "",
    `[${id}]`,
    "type=identify",
    `endpoint=${id}`,
    `match=${host}`,
    "",
    "; extensions.conf: send a number to the assistant",
    `; exten => ${number},1,Dial(PJSIP/${number}@${id})`,
  ].join("\n");
  const freeswitch = [
    `<!-- conf/sip_profiles/external/${id}.xml -->`,
    `<gateway name="${id}">`,
    `  <param name="realm" value="${host}:${port}"/>`,
    `  <param name="proxy" value="${host}:${port}"/>`,
    `  <param name="register" value="false"/>`,
    `  <param name="register-transport" value="${transport}"/>`,
    ...(user ? [`  <param name="username" value="${user}"/>`, `  <param name="password" value="(the inbound password you saved)"/>`] : [`  <param name="username" value="switchboard"/>`, `  <param name="password" value="none"/>`]),
    `  <param name="caller-id-in-from" value="true"/>`,
    `</gateway>`,
    `<!-- dialplan: <action application="bridge" data="sofia/gateway/${id}/${number}"/> -->`,
  ].join("\n");
  const threeCx = [
    `3CX → Voice & Chat → Add Gateway → Generic SIP Trunk`,
    `Name: ${trunk.name}`,
    `Registrar/Server/Gateway hostname or IP: ${host}`,
    `Port: ${port}`,
    `Type of authentication: ${user ? "Register/Account based" : "Do not require - IP based"}`,
    ...(user ? [`Authentication ID: ${user}`, "Password: (the inbound password you saved)"] : []),
    `Outbound rule: calls to ${number} → this trunk`,
    `Codecs: G.711 U-law, G.711 A-law; DTMF: RFC 2833`,
  ].join("\n");
  const telnyx = [
    `Telnyx portal → SIP Trunking → SIP Connections → ${trunk.name}`,
    `Connection type: ${user ? "Credentials" : "FQDN"}`,
    user ? `Username: ${user}  Password: (the inbound password you saved)` : `FQDN: ${host}  Port: ${port}  Transport: ${transport.toUpperCase()}`,
    `Inbound → SIP URI calling preference: "Only my connections"`,
    `Inbound → Destination number format: +E.164`,
    `Numbers: assign each number on this trunk to the connection; calls arrive as`,
    `  ${sipAddressFor(number, listener, transport)}`,
    `Outbound (Switchboard → Telnyx): outbound address sip:sip.telnyx.com, your Telnyx connection's username and password`,
  ].join("\n");
  return [
    { id: "asterisk", title: "Asterisk / FreePBX (pjsip)", text: pjsip },
    { id: "freeswitch", title: "FreeSWITCH (gateway)", text: freeswitch },
    { id: "3cx", title: "3CX", text: threeCx },
    { id: "telnyx", title: "Telnyx", text: telnyx },
  ];
}
