import { ROLES, roleAtLeast, type Role } from "@shared/roles";

/** The roles someone may hand out: owners alone make owners (the server refuses the rest). */
export function assignableRoles(actor: Role): Role[] {
  return ROLES.filter((role) => role !== "owner" || actor === "owner");
}

/** Whether `actor` may change or remove a member whose role is `target` (owners alone touch owners). */
export function mayManage(actor: Role, target: Role): boolean {
  if (!roleAtLeast(actor, "admin")) return false;
  return target !== "owner" || actor === "owner";
}

export const day = (iso: string) => new Date(iso).toLocaleDateString();
