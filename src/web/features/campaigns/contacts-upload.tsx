import { FileUp } from "lucide-react";
import { CAMPAIGN_PAGE_TEXTS as T, SAMPLE_CONTACTS_CSV, type InvalidContact } from "@shared/campaigns";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import type { CsvPreview } from "./csv-preview";
import { ErrorLine } from "@/components/form-dialog";

/** The rows left out, by row number (1 = the first after the header), with the server's reason. */
export function InvalidRows({ invalid, label }: { invalid: InvalidContact[]; label: string }) {
  if (invalid.length === 0) return null;
  return (
    <div className="grid gap-1" role="alert" aria-label={label}>
      <p className="text-sm font-medium text-destructive">{label}</p>
      <ul className="max-h-40 overflow-y-auto rounded-md border border-destructive/30 bg-destructive/5 p-2 text-sm" data-testid="invalid-rows">
        {invalid.map((r) => (
          <li key={`${r.row}-${r.reason}`}>
            Row {r.row}: {r.phone || "(empty)"} — {r.reason}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The CSV file and what it holds: the first rows, the columns that become variables, the rows to be left out. */
export function ContactsUpload({ fileName, preview, onFile }: { fileName: string | null; preview: CsvPreview | null; onFile: (file: File) => void }) {
  return (
    <div className="grid gap-3">
      <Label htmlFor="campaign-csv">Contacts (CSV)</Label>
      <div className="flex items-center gap-2 text-sm text-muted-foreground">
        <FileUp className="size-4" />
        <span>{fileName ?? T.chooseFile}</span>
      </div>
      <Input id="campaign-csv" type="file" accept=".csv,text/csv" onChange={(e) => e.target.files?.[0] && onFile(e.target.files[0])} />
      {/* Made in the browser: the columns a campaign reads, to start from. */}
      <a
        href={`data:text/csv;charset=utf-8,${encodeURIComponent(SAMPLE_CONTACTS_CSV)}`}
        download="contacts-sample.csv"
        className="w-fit text-sm font-medium text-primary underline-offset-4 hover:underline"
      >
        {T.sampleCsv}
      </a>
      <ErrorLine message={preview?.error} />
      {preview && !preview.error && (
        <div className="grid gap-3" data-testid="csv-preview">
          <p className="text-sm">
            {T.previewTitle(preview.total)}
            {preview.variables.length > 0 && (
              <>
                {" · "}
                {T.variablesFound}: {preview.variables.map((v) => `{{${v}}}`).join(", ")}
              </>
            )}
          </p>
          <div className="max-h-64 overflow-auto rounded-md border">
            <Table>
              <TableHeader>
                <TableRow>
                  <TableHead>Row</TableHead>
                  {preview.columns.map((c) => (
                    <TableHead key={c}>{c}</TableHead>
                  ))}
                </TableRow>
              </TableHeader>
              <TableBody>
                {preview.rows.map((r, i) => (
                  <TableRow key={i}>
                    <TableCell>{i + 1}</TableCell>
                    {preview.columns.map((c) => (
                      <TableCell key={c}>{r[c]}</TableCell>
                    ))}
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </div>
          <InvalidRows invalid={preview.invalid} label={T.willSkip(preview.invalid.length)} />
          <p className="text-xs text-muted-foreground">{T.previewNote}</p>
        </div>
      )}
    </div>
  );
}
