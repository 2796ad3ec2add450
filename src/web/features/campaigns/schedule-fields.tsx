import { Plus, X } from "lucide-react";
import { WEEKDAY_LABELS, type CampaignWindow } from "@shared/campaigns";
import { Button } from "@/components/ui/button";
import { Checkbox } from "@/components/ui/checkbox";
import { Input } from "@/components/ui/input";

export const DEFAULT_WINDOW: CampaignWindow = { days: [1, 2, 3, 4, 5], start: "09:00", end: "17:00" };

/** Calling windows: days of the week and from–to, read on each contact's clock (or the campaign's time zone). */
export function WindowsField({ windows, onChange }: { windows: CampaignWindow[]; onChange: (windows: CampaignWindow[]) => void }) {
  const set = (index: number, change: Partial<CampaignWindow>) => onChange(windows.map((w, i) => (i === index ? { ...w, ...change } : w)));
  const toggleDay = (index: number, day: number, on: boolean) => {
    const days = windows[index]!.days.filter((d) => d !== day);
    set(index, { days: on ? [...days, day].sort((a, b) => a - b) : days });
  };
  return (
    <fieldset className="grid gap-3">
      <legend className="mb-2 text-sm font-medium">Calling windows</legend>
      {windows.map((w, index) => (
        <div key={index} className="grid gap-2 rounded-md border p-3" data-testid="calling-window">
          <div className="flex flex-wrap gap-3">
            {WEEKDAY_LABELS.map((label, i) => {
              const day = i + 1;
              const id = `window-${index}-day-${day}`;
              return (
                <label key={day} htmlFor={id} className="flex items-center gap-1.5 text-sm">
                  <Checkbox id={id} checked={w.days.includes(day)} onCheckedChange={(c) => toggleDay(index, day, c === true)} />
                  {label}
                </label>
              );
            })}
          </div>
          <div className="flex items-center gap-2 text-sm">
            <Input type="time" className="w-32" aria-label="Window starts" value={w.start} onChange={(e) => set(index, { start: e.target.value })} />
            <span>to</span>
            <Input type="time" className="w-32" aria-label="Window ends" value={w.end} onChange={(e) => set(index, { end: e.target.value })} />
            {windows.length > 1 && (
              <Button type="button" variant="ghost" size="icon" aria-label="Remove window" onClick={() => onChange(windows.filter((_, i) => i !== index))}>
                <X />
              </Button>
            )}
          </div>
        </div>
      ))}
      <Button type="button" variant="outline" size="sm" className="w-fit" onClick={() => onChange([...windows, { ...DEFAULT_WINDOW }])}>
        <Plus />
        Add window
      </Button>
    </fieldset>
  );
}
