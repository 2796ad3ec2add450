import { format } from "date-fns";
import { MoreHorizontal, Pencil, PhoneOutgoing, Trash2 } from "lucide-react";
import { countryName, formatPhoneNumber } from "@shared/phone-format";
import { type PhoneNumber, type PhoneNumberStatus } from "@shared/phone-numbers";
import { ActionsHead } from "@/components/table-view";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { DropdownMenu, DropdownMenuContent, DropdownMenuItem, DropdownMenuTrigger } from "@/components/ui/dropdown-menu";
import { ListTable } from "@/components/list-table";
import { TableCell, TableHead, TableRow } from "@/components/ui/table";
import { useCan } from "@/lib/use-membership";

/** Spec §4: active green, inactive gray, pending yellow. */
const STATUS_VARIANT: Record<PhoneNumberStatus, "success" | "muted" | "warning"> = { active: "success", inactive: "muted", pending: "warning" };

/** The country a number is from, or the SIP trunk it comes in on. */
function where(number: PhoneNumber) {
  return number.provider === "sip" ? `SIP trunk: ${number.sip_trunk_name}` : countryName(number.country_code);
}

function createdDate(iso: string) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? "Invalid date" : format(date, "MMM d, yyyy");
}

export function PhoneNumbersTable({
  numbers,
  onEdit,
  onCall,
  onDelete,
}: {
  numbers: PhoneNumber[];
  onEdit: (number: PhoneNumber) => void;
  onCall: (number: PhoneNumber) => void;
  onDelete: (number: PhoneNumber) => void;
}) {
  // Calling out and re-linking are building; releasing a number costs money, so admins only.
  const build = useCan("build");
  const release = useCan("numbers");
  return (
    <ListTable
      head={
        <>
          <TableHead className="pl-4">Phone Number</TableHead>
          <TableHead className="hidden md:table-cell">Country</TableHead>
          <TableHead>Status</TableHead>
          <TableHead>Assistant</TableHead>
          <TableHead className="hidden sm:table-cell">Created</TableHead>
          <ActionsHead className="pr-4 text-right" />
        </>
      }
    >
      {numbers.map((number) => (
        <TableRow key={number.id} data-testid="phone-number-row">
          <TableCell className="py-3 pl-4">
            <span className="font-medium whitespace-nowrap tabular-nums" title={number.phone_number}>
              {formatPhoneNumber(number.phone_number)}
            </span>
            {/* Below 768 px the country sits under the number, so the row's actions stay on screen. */}
            <span className="block text-xs text-muted-foreground md:hidden">{where(number)}</span>
          </TableCell>
          <TableCell className="hidden md:table-cell">{where(number)}</TableCell>
          <TableCell>
            <Badge variant={STATUS_VARIANT[number.status]} className="capitalize">
              {number.status}
            </Badge>
          </TableCell>
          <TableCell className="max-w-[7rem] truncate sm:max-w-[14rem]">
            {number.assistant_name ?? <span className="text-muted-foreground italic">Unassigned</span>}
            {number.assistant_name !== null && number.assistant_version !== null && (
              <span className="ml-1 text-xs text-muted-foreground">(pinned to v{number.assistant_version})</span>
            )}
          </TableCell>
          <TableCell className="hidden text-muted-foreground sm:table-cell">{createdDate(number.created_at)}</TableCell>
          <TableCell className="pr-4 text-right">
            {build && (
              <DropdownMenu>
                <DropdownMenuTrigger asChild>
                  <Button variant="ghost" size="icon-sm" aria-label={`Actions for ${number.phone_number}`}>
                    <MoreHorizontal />
                  </Button>
                </DropdownMenuTrigger>
                <DropdownMenuContent align="end">
                  <DropdownMenuItem onSelect={() => onCall(number)} disabled={number.status !== "active"}>
                    <PhoneOutgoing />
                    Call
                  </DropdownMenuItem>
                  <DropdownMenuItem onSelect={() => onEdit(number)}>
                    <Pencil />
                    Edit
                  </DropdownMenuItem>
                  {release && (
                    <DropdownMenuItem variant="destructive" onSelect={() => onDelete(number)}>
                      <Trash2 />
                      Delete
                    </DropdownMenuItem>
                  )}
                </DropdownMenuContent>
              </DropdownMenu>
            )}
          </TableCell>
        </TableRow>
      ))}
    </ListTable>
  );
}
