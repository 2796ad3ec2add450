/** SIPp as a trunk that pings us with OPTIONS (a keep-alive outside any call) and expects 200. */
export const optionsPing = `<?xml version="1.0" encoding="ISO-8859-1" ?>
<!DOCTYPE scenario SYSTEM "sipp.dtd">
<scenario name="options">
<send retrans="500"><![CDATA[
OPTIONS sip:[remote_ip]:[remote_port] SIP/2.0
Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
From: <sip:ping@[local_ip]:[local_port]>;tag=[pid]SIPpTag00[call_number]
To: <sip:[remote_ip]:[remote_port]>
Call-ID: [call_id]
CSeq: 1 OPTIONS
Max-Forwards: 70
Content-Length: 0

]]></send>
<recv response="200"/>
</scenario>
`;
