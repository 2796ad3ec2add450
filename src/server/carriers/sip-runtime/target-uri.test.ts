import { describe, expect, it } from "vitest";
import { sipAddressThroughTrunk, targetUri } from "./target-uri.ts";

describe("where a transfer's call goes through the trunk", () => {
  it("puts a number at the trunk's address, after its dial prefix", () => {
    expect(targetUri({ uri: "sip:pbx.example.com:5080;transport=tcp", prefix: null }, "+15550100")).toBe("sip:+15550100@pbx.example.com:5080;transport=tcp");
    expect(targetUri({ uri: "sip:pbx.example.com", prefix: "9" }, "+15550100")).toBe("sip:915550100@pbx.example.com");
  });

  it("calls a SIP address on the trunk's host through the trunk, its port and transport the trunk's", () => {
    const trunk = { uri: "sip:PBX.example.com:5080;transport=tcp" };
    expect(sipAddressThroughTrunk(trunk, "sip:sales@pbx.example.com")).toBe("sip:sales@PBX.example.com:5080;transport=tcp");
    expect(sipAddressThroughTrunk(trunk, "sip:sales@pbx.example.com:5080;user=phone")).toBe("sip:sales@PBX.example.com:5080;transport=tcp;user=phone");
    expect(sipAddressThroughTrunk({ uri: "sip:10.0.0.5" }, "sip:200@10.0.0.5:5060")).toBe("sip:200@10.0.0.5");
  });

  it("never calls a SIP address elsewhere: another host, or another port on the trunk's host", () => {
    const trunk = { uri: "sip:pbx.example.com" };
    expect(sipAddressThroughTrunk(trunk, "sip:sales@evil.example.net")).toBeNull();
    expect(sipAddressThroughTrunk(trunk, "sip:sales@pbx.example.com.evil.net")).toBeNull();
    expect(sipAddressThroughTrunk(trunk, "sip:sales@pbx.example.com:5070")).toBeNull();
    expect(sipAddressThroughTrunk({ uri: "not a uri" }, "sip:sales@pbx.example.com")).toBeNull();
  });
});
