import { ArrowRightIcon } from "lucide-react";
import type { ReactNode } from "react";
import { Link } from "react-router";
import { primaryCta } from "./styles";

/** The gradient button to the demo request form, the same wherever a marketing page asks for one. */
export function RequestDemoCta({ children = "Request a demo" }: { children?: ReactNode }) {
  return (
    <Link to="/request-a-demo" className={primaryCta}>
      {children}
      <ArrowRightIcon className="size-4" aria-hidden="true" />
    </Link>
  );
}
