import { zodResolver } from "@hookform/resolvers/zod";
import { ChevronDownIcon } from "lucide-react";
import type { ComponentProps } from "react";
import { useForm } from "react-hook-form";
import { Link } from "react-router";
import {
  CALL_VOLUME_OPTIONS,
  DEMO_COUNTRIES,
  DEMO_ERROR_FALLBACK,
  DEMO_ERROR_TITLE,
  DEMO_SUBMITTED,
  demoFormSchema,
  toDemoRequest,
  type DemoFormValues,
  type DemoRequestCreated,
} from "@shared/demo-requests";
import { Button } from "@/components/ui/button";
import { FormField } from "@/components/ui/form-field";
import { FormInput } from "@/components/form-input";
import { toast } from "@/components/ui/sonner";
import { Textarea } from "@/components/ui/textarea";
import { api } from "@/lib/api";

const EMPTY: DemoFormValues = {
  firstName: "",
  lastName: "",
  company: "",
  email: "",
  role: "",
  phoneNumber: "",
  location: "",
  callVolume: "",
  comments: "",
};

/** The Request a demo form: spec §5 "Demo" validation, §8 "Demo" toasts, stored through POST /api/demo-requests. */
export function DemoForm() {
  // RHF's default: validate on submit, then re-validate each field as it changes.
  const form = useForm({ resolver: zodResolver(demoFormSchema), defaultValues: EMPTY });
  const { errors, isSubmitting } = form.formState;

  const onSubmit = form.handleSubmit(async (values) => {
    try {
      await api<DemoRequestCreated>("/api/demo-requests", { body: toDemoRequest(values) });
      toast.success(DEMO_SUBMITTED.title, { description: DEMO_SUBMITTED.description });
      form.reset(EMPTY);
    } catch (err) {
      toast.error(DEMO_ERROR_TITLE, { description: err instanceof Error && err.message ? err.message : DEMO_ERROR_FALLBACK });
    }
  });

  return (
    <form onSubmit={onSubmit} noValidate aria-label="Request a demo" className="grid gap-5">
      <div className="grid gap-5 sm:grid-cols-2">
        <FormInput form={form} name="firstName" label="First name" className="h-10" autoComplete="given-name" />
        <FormInput form={form} name="lastName" label="Last name" className="h-10" autoComplete="family-name" />
      </div>
      <div className="grid gap-5 sm:grid-cols-2">
        <FormInput form={form} name="company" label="Company" className="h-10" autoComplete="organization" />
        <FormInput form={form} name="email" label="Work email" className="h-10" type="email" autoComplete="email" placeholder="you@company.com" />
      </div>
      <div className="grid gap-5 sm:grid-cols-2">
        <FormInput form={form} name="role" label="Role" className="h-10" autoComplete="organization-title" placeholder="e.g. Head of Customer Care" />
        <FormInput form={form} name="phoneNumber" label="Phone number" className="h-10" type="tel" autoComplete="tel" placeholder="+1 555 010 0100" />
      </div>
      <div className="grid gap-5 sm:grid-cols-2">
        {/* Native selects: the phone's own picker on mobile, and no popover machinery to download. */}
        <FormField label="Location" error={errors.location?.message}>
          {(control) => (
            <NativeSelect {...control} {...form.register("location")} placeholder="Select a country">
              {DEMO_COUNTRIES.map((country) => (
                <option key={country} value={country}>
                  {country}
                </option>
              ))}
            </NativeSelect>
          )}
        </FormField>
        <FormField label="Yearly call volume" error={errors.callVolume?.message}>
          {(control) => (
            <NativeSelect {...control} {...form.register("callVolume")} placeholder="Select a range">
              {CALL_VOLUME_OPTIONS.map((option) => (
                <option key={option.value} value={option.value}>
                  {option.label}
                </option>
              ))}
            </NativeSelect>
          )}
        </FormField>
      </div>
      <FormField label="Comments (optional)" error={errors.comments?.message}>
        <Textarea rows={4} className="min-h-24" placeholder="Which calls would you like an assistant to take first?" {...form.register("comments")} />
      </FormField>
      <Button type="submit" size="lg" disabled={isSubmitting} className="h-11 w-full rounded-full bg-linear-to-r from-violet-600 to-fuchsia-600 text-white hover:from-violet-500 hover:to-fuchsia-500">
        {isSubmitting ? "Submitting..." : "Request a demo"}
      </Button>
      <p className="text-center text-xs leading-5 text-zinc-500">
        By submitting this form you agree to our{" "}
        <Link to="/privacy-policy" className="font-medium text-violet-700 underline underline-offset-2 hover:text-violet-900">
          Privacy Policy
        </Link>
        . We&apos;ll only use your details to arrange your demo.
      </p>
    </form>
  );
}

/** A styled native select whose empty first option is the placeholder (and reads as "required"). */
function NativeSelect({ placeholder, children, ...props }: ComponentProps<"select"> & { placeholder: string }) {
  return (
    <div className="relative">
      <select
        {...props}
        className="h-10 w-full appearance-none rounded-md border border-input bg-transparent py-2 pr-9 pl-3 text-base shadow-xs transition-[color,box-shadow] outline-none focus-visible:border-ring focus-visible:ring-[3px] focus-visible:ring-ring/50 aria-invalid:border-destructive aria-invalid:ring-destructive/20 has-[option[value='']:checked]:text-muted-foreground md:text-sm [&>option]:text-foreground"
      >
        <option value="">{placeholder}</option>
        {children}
      </select>
      <ChevronDownIcon className="pointer-events-none absolute top-1/2 right-3 size-4 -translate-y-1/2 text-muted-foreground" aria-hidden="true" />
    </div>
  );
}
