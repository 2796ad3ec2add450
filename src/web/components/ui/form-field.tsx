import * as React from "react";
import { Slot } from "radix-ui";

import { Label } from "@/components/ui/label";
import { cn } from "@/lib/utils";

/** Props a form control needs to be tied to its label, description and error. */
type FormControlProps = {
  id: string;
  "aria-invalid": true | undefined;
  "aria-describedby": string | undefined;
};

type FormFieldProps = Omit<React.ComponentProps<"div">, "children"> & {
  label: React.ReactNode;
  /** The error text; when set the control is marked aria-invalid and described by it. */
  error?: React.ReactNode;
  description?: React.ReactNode;
  /** The control's id; generated when omitted. */
  id?: string;
  /**
   * One element that renders the focusable control (Input, Textarea, Checkbox, ...): it
   * receives the props through a Slot. For composites such as Select, pass a function and
   * spread its argument on the focusable part: `{(p) => <Select><SelectTrigger {...p}/>...}`.
   */
  children: React.ReactElement | ((control: FormControlProps) => React.ReactNode);
};

function FormField({
  label,
  error,
  description,
  id,
  className,
  children,
  ...props
}: FormFieldProps) {
  const generatedId = React.useId();
  const controlId = id ?? generatedId;
  const descriptionId = `${controlId}-description`;
  const errorId = `${controlId}-error`;
  const hasError = error != null && error !== false && error !== "";
  const describedBy =
    [description ? descriptionId : null, hasError ? errorId : null].filter(Boolean).join(" ") ||
    undefined;
  const control: FormControlProps = {
    id: controlId,
    "aria-invalid": hasError ? true : undefined,
    "aria-describedby": describedBy,
  };

  return (
    <div
      data-slot="form-field"
      data-invalid={hasError || undefined}
      className={cn("grid gap-2", className)}
      {...props}
    >
      <Label htmlFor={controlId} className={cn(hasError && "text-destructive")}>
        {label}
      </Label>
      {typeof children === "function" ? (
        children(control)
      ) : (
        <Slot.Root {...control}>{children}</Slot.Root>
      )}
      {description ? (
        <p id={descriptionId} data-slot="form-description" className="text-sm text-muted-foreground">
          {description}
        </p>
      ) : null}
      {hasError ? (
        <p id={errorId} data-slot="form-message" className="text-sm text-destructive">
          {error}
        </p>
      ) : null}
    </div>
  );
}

export { FormField };
export type { FormFieldProps, FormControlProps };
