/**
 * What the SIP runtime needs of the trunks and SIP numbers the sip-trunks module keeps: the numbers
 * a Request-URI may name (across organisations: the INVITE carries no account), the way out through
 * a number's trunk, the trunks to keep registered, where trunks send from, and where a trunk's
 * state is written.
 */
import type { InboundCandidate, SipTrunksService } from "../../modules/sip-trunks/sip-trunks.service.ts";

export type SipTrunkDirectory = Pick<SipTrunksService, "inboundCandidates" | "outboundRoute" | "trunksToRegister" | "trunkSources" | "recordState">;
export type SipInboundCandidate = InboundCandidate;
