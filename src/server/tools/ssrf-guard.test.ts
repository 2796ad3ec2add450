import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RecordedRequest, ToolUpstream } from "../../../tests/fakes/tool-upstream.ts";
import { startToolUpstream } from "../../../tests/fakes/tool-upstream.ts";
import type { ExecuteToolOptions, ResolvedAddress, ToolHttpConfig } from "./index.ts";
import { describeBlockedAddress, executeTool, isHostAllowed, systemResolver, ToolExecutionError } from "./index.ts";

let upstream: ToolUpstream;
let upstream6: ToolUpstream;

beforeAll(async () => {
  upstream = await startToolUpstream();
  upstream6 = await startToolUpstream({ host: "::1" });
});
afterAll(async () => {
  await upstream.close();
  await upstream6.close();
});

const get = (url: string): ToolHttpConfig => ({ http_method: "GET", parameter_format: "standard", end_point_url: url });

/** Test DNS: names ending in .test resolve to the addresses given here, others as usual. */
const names: Record<string, ResolvedAddress[]> = {
  "internal.test": [{ address: "10.0.0.5", family: 4 }],
  "loopback.test": [{ address: "127.0.0.1", family: 4 }],
  "mixed.test": [
    { address: "93.184.216.34", family: 4 },
    { address: "10.0.0.5", family: 4 },
  ],
  "metadata.test": [{ address: "fd00:ec2::254", family: 6 }],
};
const resolve = async (host: string) => (host.endsWith(".test") ? (names[host] ?? []) : systemResolver(host));

async function refusal(url: string, options: Partial<ExecuteToolOptions> = {}): Promise<ToolExecutionError> {
  const before = upstream.requests.length + upstream6.requests.length;
  const err = await executeTool(get(url), {}, { allowedHosts: [], resolve, ...options }).then(
    () => expect.fail(`expected ${url} to be refused`),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ToolExecutionError);
  // Refused means no request reached anything.
  expect(upstream.requests.length + upstream6.requests.length).toBe(before);
  return err as ToolExecutionError;
}

describe("refused when not allow-listed", () => {
  const port = () => upstream.port;
  const cases: [url: () => string, host: string, reason: string][] = [
    [() => `http://127.0.0.1:${port()}/echo`, "127.0.0.1", "it is a loopback address"],
    [() => `http://localhost:${port()}/echo`, "localhost", "it resolves to a loopback address"],
    [() => `http://[::1]:${upstream6.port}/echo`, "[::1]", "it is a loopback address"],
    [() => `http://[::ffff:127.0.0.1]:${port()}/echo`, "[::ffff:7f00:1]", "it is a loopback address"],
    [() => `http://[::ffff:7f00:1]:${port()}/echo`, "[::ffff:7f00:1]", "it is a loopback address"],
    [() => `http://2130706433:${port()}/echo`, "127.0.0.1", "it is a loopback address"],
    [() => `http://0x7f.1:${port()}/echo`, "127.0.0.1", "it is a loopback address"],
    [() => "http://10.0.0.1/", "10.0.0.1", "it is a private network address"],
    [() => "http://172.16.0.1/", "172.16.0.1", "it is a private network address"],
    [() => "http://192.168.1.1/", "192.168.1.1", "it is a private network address"],
    [() => "http://169.254.169.254/latest/meta-data/", "169.254.169.254", "it is a cloud metadata address"],
    [() => "http://169.254.1.1/", "169.254.1.1", "it is a link-local address"],
    [() => "http://100.64.0.1/", "100.64.0.1", "it is a carrier-grade NAT address"],
    [() => "http://0.0.0.0/", "0.0.0.0", "it is the unspecified address"],
    [() => "http://[::]/", "[::]", "it is the unspecified address"],
    [() => "http://255.255.255.255/", "255.255.255.255", "it is the broadcast address"],
    [() => "http://224.0.0.1/", "224.0.0.1", "it is a multicast address"],
    [() => "http://[ff02::1]/", "[ff02::1]", "it is a multicast address"],
    [() => "http://[fe80::1]/", "[fe80::1]", "it is a link-local address"],
    [() => "http://[fc00::1]/", "[fc00::1]", "it is a unique-local (private) address"],
    [() => "http://[fd00:ec2::254]/", "[fd00:ec2::254]", "it is a cloud metadata address"],
    [() => "http://[::ffff:a9fe:a9fe]/", "[::ffff:a9fe:a9fe]", "it is a cloud metadata address"],
    [() => "http://[64:ff9b::a00:1]/", "[64:ff9b::a00:1]", "it is a private network address"],
    [() => "http://[2002:7f00:1::]/", "[2002:7f00:1::]", "it is a loopback address"],
    [() => `http://internal.test:${port()}/`, "internal.test", "it resolves to a private network address"],
    [() => `http://loopback.test:${port()}/`, "loopback.test", "it resolves to a loopback address"],
    [() => "http://mixed.test/", "mixed.test", "it resolves to a private network address"],
    [() => "https://metadata.test/", "metadata.test", "it resolves to a cloud metadata address"],
  ];

  it.each(cases)("%s", async (url, host, reason) => {
    const err = await refusal(url());
    expect(err.code).toBe("tool_host_blocked");
    expect(err.status).toBe(403);
    expect(err.message).toBe(
      `Refused to connect to ${host}: ${reason}. Only public internet addresses can be called; ` +
        "an administrator can allow this host in TOOL_ALLOWED_HOSTS.",
    );
  });

  it("checks the real resolver's answer for localhost too", async () => {
    const err = await refusal(`http://localhost:${upstream.port}/echo`, { resolve: undefined });
    expect(err.code).toBe("tool_host_blocked");
  });

  it("refuses when only another port of the host is allow-listed", async () => {
    const err = await refusal(`http://127.0.0.1:${upstream.port}/echo`, { allowedHosts: ["127.0.0.1:1"] });
    expect(err.code).toBe("tool_host_blocked");
  });
});

describe("allowed when listed", () => {
  async function reaches(url: string, allowedHosts: string[]) {
    const result = await executeTool(get(url), {}, { allowedHosts, resolve });
    expect(result.success).toBe(true);
    return result.data as RecordedRequest;
  }

  it("127.0.0.1 with its port, or without one", async () => {
    await reaches(`http://127.0.0.1:${upstream.port}/echo`, [`127.0.0.1:${upstream.port}`]);
    await reaches(`http://127.0.0.1:${upstream.port}/echo`, ["127.0.0.1"]);
  });

  it("localhost, case-insensitively", async () => {
    await reaches(`http://LocalHost:${upstream.port}/echo`, ["LOCALHOST"]);
  });

  it("[::1]", async () => {
    await reaches(`http://[::1]:${upstream6.port}/echo`, [`[::1]:${upstream6.port}`]);
    await reaches(`http://[::1]:${upstream6.port}/echo`, ["::1"]);
  });

  it("[::ffff:127.0.0.1], however the entry spells it", async () => {
    await reaches(`http://[::ffff:127.0.0.1]:${upstream.port}/echo`, ["::ffff:127.0.0.1"]);
    await reaches(`http://[::ffff:127.0.0.1]:${upstream.port}/echo`, [`[::ffff:7f00:1]:${upstream.port}`]);
  });

  it("a name that resolves to a private address", async () => {
    const seen = await reaches(`http://loopback.test:${upstream.port}/echo`, ["loopback.test"]);
    expect(seen.headers.host).toBe(`loopback.test:${upstream.port}`);
  });

  it.each(["10.0.0.1", "169.254.169.254"])("%s: the guard lets the connection be attempted", async (host) => {
    // Nothing listens there in a test run; what matters is that the answer is not a refusal.
    const outcome = await executeTool(get(`http://${host}:9/`), {}, { allowedHosts: [host], connectTimeoutMs: 300 }).then(
      () => "answered",
      (err: ToolExecutionError) => err.code,
    );
    expect(["answered", "tool_connect_timeout", "tool_connection_failed"]).toContain(outcome);
  });
});

describe("redirects are checked again", () => {
  const via = (target: string) => `http://127.0.0.1:${upstream.port}/redirect-to?url=${encodeURIComponent(target)}`;
  const onlyUpstream = () => [`127.0.0.1:${upstream.port}`];

  it.each([
    ["localhost", () => `http://localhost:${upstream.port}/echo`],
    ["10.0.0.1", () => "http://10.0.0.1/admin"],
    ["169.254.169.254", () => "http://169.254.169.254/latest/meta-data/"],
    ["loopback.test", () => `http://loopback.test:${upstream.port}/echo`],
  ])("refuses a redirect to %s and makes no further request", async (host, target) => {
    const before = upstream.requests.length;
    const err = await executeTool(get(via(target())), {}, { allowedHosts: onlyUpstream(), resolve }).then(
      () => expect.fail("expected the redirect to be refused"),
      (e: ToolExecutionError) => e,
    );
    expect(err.code).toBe("tool_host_blocked");
    expect(err.message).toContain(`Refused to connect to ${host}:`);
    expect(upstream.requests.slice(before).map((r) => r.path)).toEqual(["/redirect-to"]);
  });

  it("follows a redirect to a private host that is allow-listed", async () => {
    const target = `http://loopback.test:${upstream.port}/echo`;
    const result = await executeTool(get(via(target)), {}, { allowedHosts: [...onlyUpstream(), "loopback.test"], resolve });
    expect(result).toMatchObject({ success: true, url: target });
  });
});

describe("address classification", () => {
  it.each(["8.8.8.8", "1.1.1.1", "93.184.216.34", "2606:4700:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1"])(
    "%s is public",
    (address) => expect(describeBlockedAddress(address)).toBeNull(),
  );

  it.each(["127.0.0.2", "::1", "fe80::1%eth0", "::ffff:0:7f00:1", "::7f00:1", "198.18.0.1", "240.0.0.1", "not-an-ip"])(
    "%s is not",
    (address) => expect(describeBlockedAddress(address)).not.toBeNull(),
  );
});

describe("allow-list matching", () => {
  it.each([
    [["Example.COM"], "example.com", 443, true],
    [["example.com."], "example.com", 443, true],
    [["example.com:8443"], "example.com", 443, false],
    [["example.com:8443"], "example.com", 8443, true],
    [["sub.example.com"], "example.com", 443, false],
    [["[::1]"], "[::1]", 80, true],
    [["[::1]:80"], "[::1]", 81, false],
    [["fe80::1"], "[fe80::1]", 80, true],
    [[], "example.com", 443, false],
  ] as const)("%j allows %s:%i → %s", (entries, host, port, expected) => {
    expect(isHostAllowed(entries, host, port)).toBe(expected);
  });
});
