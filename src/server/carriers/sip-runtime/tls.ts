/**
 * SIP over TLS as configured (SIP_TLS_CERT, SIP_TLS_KEY, SIP_TLS_CA; ADR 075): the PEM files read
 * when SIP starts. A file that cannot be read, or a certificate and key node:tls will not take
 * (not PEM, not a pair), leaves TLS off and says why; UDP and TCP go on.
 */
import { readFile } from "node:fs/promises";
import { createSecureContext } from "node:tls";
import type { FastifyBaseLogger } from "fastify";
import type { SipTlsConfig } from "../../config.ts";
import type { SipEndpointOptions } from "../sip/endpoint.ts";

export async function loadTls(config: SipTlsConfig | undefined, logger: FastifyBaseLogger): Promise<SipEndpointOptions["tls"]> {
  if (!config) return undefined;
  try {
    const [cert, key, ca] = await Promise.all([readFile(config.certFile), readFile(config.keyFile), config.caFile ? readFile(config.caFile) : undefined]);
    createSecureContext({ cert, key, ca });
    return { port: config.port, cert, key, ca, srtp: config.srtp };
  } catch (err) {
    logger.warn({ err }, `SIP over TLS is off: cannot use SIP_TLS_CERT, SIP_TLS_KEY or SIP_TLS_CA (${(err as Error).message})`);
    return undefined;
  }
}
