/**
 * Teams in tests: a new person invited into an owner's organisation with a role, through the
 * real invitation routes (invite, then accept signed in as the invited address).
 */
import type { Role } from "../src/shared/roles.ts";
import { as, signUpAndLogIn, type TestApp } from "./harness.ts";
import type { SignedUp } from "./sign-up.ts";

/** A member of `owner`'s current organisation: their requests then work in it (organizationId is it). */
export async function joinAs(app: TestApp, owner: Pick<SignedUp, "cookie" | "organizationId">, role: Role, name = `A ${role}`): Promise<SignedUp> {
  const person = await signUpAndLogIn(app, name);
  const invited = await as(app, owner).post("/api/team/invitations", { email: person.email, role });
  if (invited.statusCode !== 201) throw new Error(`invite failed: ${invited.statusCode} ${invited.body}`);
  const token = new URL((invited.json() as { url: string }).url).searchParams.get("token");
  const accepted = await as(app, person).post("/api/team/invitations/accept", { token });
  if (accepted.statusCode !== 200) throw new Error(`accept failed: ${accepted.statusCode} ${accepted.body}`);
  return { ...person, organizationId: owner.organizationId };
}
