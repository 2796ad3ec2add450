import type { ComponentProps } from "react";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import type { SelectOption } from "@/components/select-field";

type OptionSelectProps = Omit<ComponentProps<typeof SelectTrigger>, "children"> & {
  options: readonly SelectOption[];
  /** "" (nothing chosen yet) shows the placeholder. */
  value: string;
  onValueChange: (value: string) => void;
  placeholder?: string;
  disabled?: boolean;
};

/**
 * A select over a plain list of options: the one markup of the app's selects, whether a form's
 * labelled field or a filter above a list (whose first option is usually the one that filters nothing).
 */
export function OptionSelect({ options, value, onValueChange, placeholder, disabled, ...trigger }: OptionSelectProps) {
  return (
    <Select value={value} onValueChange={onValueChange} disabled={disabled}>
      <SelectTrigger {...trigger}>
        <SelectValue placeholder={placeholder} />
      </SelectTrigger>
      <SelectContent>
        {options.map((option) => (
          <SelectItem key={option.value} value={option.value} disabled={option.disabled}>
            {option.label}
          </SelectItem>
        ))}
      </SelectContent>
    </Select>
  );
}
