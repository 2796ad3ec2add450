import { Lock, Phone, Plus } from "lucide-react";
import { useState } from "react";
import { PHONE_NUMBER_MESSAGES as M, type PhoneNumber, type PhoneNumberPurchase } from "@shared/phone-numbers";
import { ConfirmDeleteDialog } from "@/components/confirm-delete-dialog";
import { CreateFirstButton, EmptyState, LoadError } from "@/components/page-states";
import { Button } from "@/components/ui/button";
import { toast, toastFailure } from "@/components/ui/sonner";
import { Spinner } from "@/components/ui/spinner";
import { useSession } from "@/lib/session";
import { useCan } from "@/lib/use-membership";
import { api, ApiError } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";
import { ReachabilityWarning } from "@/components/reachability-notice";
import { REACHABILITY_TEXTS } from "@shared/reachability";
import { SETTINGS_CARDS, settingsPath } from "@shared/settings";
import type { CredentialStatus } from "@shared/credentials";
import { useQuery } from "@tanstack/react-query";
import { Link } from "react-router";
import { CallDialog } from "./call-dialog";
import { PhoneNumberDialog, type DialogState } from "./phone-number-dialog";
import { PhoneNumbersTable } from "./phone-numbers-table";
import { useAssistantOptions, useDeletePhoneNumber, useOutboundCall, usePhoneNumbers, usePurchasePhoneNumber, useUpdatePhoneNumber } from "./use-phone-numbers";
import { OUTBOUND_TEXTS } from "@shared/outbound";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/components/ui/tabs";
import { SipNumberDialog } from "./sip-number-dialog";
import { SipTrunksSection } from "./sip-trunks-section";
import { useAddSipNumber, useSipTrunks } from "./use-sip-trunks";

const isSessionLost = (err: unknown) => err instanceof ApiError && err.status === 401;

export function PhoneNumbersPage() {
  const session = useSession();
  const [sessionLost, setSessionLost] = useState(false);
  const signedIn = Boolean(session.data) && !sessionLost;
  const numbers = usePhoneNumbers(signedIn);
  const assistants = useAssistantOptions(signedIn);
  const purchase = usePurchasePhoneNumber();
  const update = useUpdatePhoneNumber();
  const remove = useDeletePhoneNumber();

  const [dialog, setDialog] = useState<DialogState>({ open: false });
  const [deleting, setDeleting] = useState<(PhoneNumber & { name: string }) | null>(null);
  const [calling, setCalling] = useState<PhoneNumber | null>(null);
  const outbound = useOutboundCall();
  const sipTrunks = useSipTrunks(signedIn);
  const addSip = useAddSipNumber();
  const [addingSip, setAddingSip] = useState(false);

  const authLost = !signedIn || isSessionLost(numbers.error);
  // Buying a number (and reading the organisation's credentials) is for admins.
  const buy = useCan("numbers");
  const twilioSid = useQuery({
    queryKey: queryKeys.credential("twilio_account_sid"),
    queryFn: () => api<CredentialStatus>("/api/credentials/twilio_account_sid"),
    enabled: signedIn && buy,
  });

  const openCreate = () => {
    if (!signedIn) {
      toast.error(M.authErrorTitle, { description: M.mustBeLoggedIn });
      return;
    }
    setDialog({ open: true, editing: null });
  };

  /** Spec §8: the banner gets the server's words; a toast says the request failed, or that the session is gone. */
  const onSubmit = async (values: PhoneNumberPurchase, editing: PhoneNumber | null, pin: number | null) => {
    if (!signedIn) {
      toast.error(M.authErrorTitle, { description: M.mustBeLoggedIn });
      throw new Error(M.noValidSession);
    }
    try {
      if (editing) {
        // Only the pin changed: that alone asks Twilio nothing (it needs no credentials).
        const pinOnly = values.assistant_id === editing.assistant_id && pin !== editing.assistant_version;
        const country = editing.provider === "sip" ? {} : { country_code: editing.country_code as PhoneNumberPurchase["country_code"] };
        const patch = pinOnly ? { assistant_version: pin } : { assistant_id: values.assistant_id, ...country, assistant_version: pin };
        await update.mutateAsync({ id: editing.id, patch });
        toast.success(M.updated, { description: M.updatedDescription });
      } else {
        const bought = await purchase.mutateAsync(values);
        toast.success(M.purchased, { description: `${bought.phone_number} is answered by ${bought.assistant_name ?? "its assistant"}.` });
      }
      setDialog({ open: false });
    } catch (err) {
      if (isSessionLost(err)) {
        toast.error(M.requestFailedTitle, { description: M.authLogBackIn });
        setSessionLost(true);
        throw new Error(M.noValidSession);
      }
      toast.error(M.requestFailedTitle, { description: M.requestFailed });
      throw new Error(err instanceof Error && err.message ? err.message : M.purchaseFailed);
    }
  };

  const onDelete = async (number: PhoneNumber) => {
    try {
      await remove.mutateAsync(number.id);
      toast.success(M.deleted, { description: M.deletedDescription });
    } catch (err) {
      if (isSessionLost(err)) setSessionLost(true);
      toastFailure(M.deleteFailed, err);
      throw err;
    }
  };

  let body;
  if (authLost) {
    body = (
      <div className="flex flex-col items-center gap-3 rounded-lg border border-dashed px-6 py-16 text-center">
        <Lock className="size-8 text-muted-foreground" />
        <p className="font-medium">{M.authRequiredTitle}</p>
        <p className="text-sm text-muted-foreground">{M.authRequiredText}</p>
      </div>
    );
  } else if (numbers.isPending) {
    body = (
      <div className="flex justify-center py-16">
        <Spinner className="size-8 text-muted-foreground" label="Loading phone numbers" />
      </div>
    );
  } else if (numbers.isError) {
    body = <LoadError what="phone numbers" message={`${M.fetchFailed}: ${numbers.error.message}`} onRetry={() => void numbers.refetch()} />;
  } else if (numbers.data.length === 0) {
    body = (
      <EmptyState
        icon={Phone}
        title="No Phone Numbers Yet"
        action={buy && <CreateFirstButton onClick={openCreate}>Create New Phone Number</CreateFirstButton>}
      >
        Buy a phone number and link it to one of your assistants. Each number is answered by exactly one assistant, and callers talk to it
        straight away.
      </EmptyState>
    );
  } else {
    body = (
      <PhoneNumbersTable
        numbers={numbers.data}
        onEdit={(number) => setDialog({ open: true, editing: number })}
        onCall={setCalling}
        onDelete={(number) => setDeleting({ ...number, name: number.phone_number })}
      />
    );
  }

  return (
    <section className="mx-auto grid w-full max-w-6xl gap-6">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div className="grid gap-1">
          <h1 className="text-2xl font-semibold tracking-tight">Phone Numbers</h1>
          <p className="text-sm text-muted-foreground">Buy numbers through your Twilio account, or bring them on your own SIP trunk, and choose which assistant answers each one.</p>
        </div>
        <div className="flex flex-wrap gap-2">
          {buy && (
            <Button variant="outline" onClick={() => setAddingSip(true)} disabled={authLost}>
              <Plus />
              Add SIP number
            </Button>
          )}
          {buy && (
            <Button onClick={openCreate} disabled={authLost}>
              <Plus />
              Create New
            </Button>
          )}
        </div>
      </div>

      <FetchErrorToast error={numbers.isError && !authLost ? numbers.error : null} />
      {!authLost && twilioSid.data?.exists === false && (
        <div role="status" className="flex flex-wrap items-center justify-between gap-3 rounded-lg border bg-muted/40 p-4 text-sm" data-testid="no-twilio-credentials">
          <div className="grid gap-1">
            <p className="font-medium">{REACHABILITY_TEXTS.noCredentialsTitle}</p>
            <p className="text-muted-foreground">{REACHABILITY_TEXTS.noCredentials}</p>
          </div>
          <Button asChild variant="outline" size="sm">
            <Link to={settingsPath(SETTINGS_CARDS.twilio)}>Open Settings</Link>
          </Button>
        </div>
      )}
      <Tabs defaultValue="numbers" className="min-w-0 gap-4">
        <TabsList>
          <TabsTrigger value="numbers">Numbers</TabsTrigger>
          <TabsTrigger value="sip-trunks">SIP trunks</TabsTrigger>
        </TabsList>
        <TabsContent value="numbers" className="grid gap-6">
          {!authLost && <ReachabilityWarning />}
          {body}
        </TabsContent>
        <TabsContent value="sip-trunks" className="min-w-0">{!authLost && <SipTrunksSection enabled={signedIn} />}</TabsContent>
      </Tabs>
      <SipNumberDialog
        open={addingSip}
        trunks={sipTrunks.data ?? []}
        assistants={assistants.data ?? []}
        onOpenChange={setAddingSip}
        onSubmit={async (input) => {
          const added = await addSip.mutateAsync(input);
          toast.success("SIP number added", { description: `${added.phone_number} is answered by ${added.assistant_name ?? "its assistant"}.` });
          setAddingSip(false);
        }}
      />

      <PhoneNumberDialog
        state={dialog}
        signedIn={signedIn}
        assistants={assistants.data ?? []}
        onOpenChange={(open) => !open && setDialog({ open: false })}
        onSubmit={onSubmit}
      />
      <CallDialog
        number={calling}
        assistants={assistants.data ?? []}
        onOpenChange={(open) => !open && setCalling(null)}
        onCall={async (input) => {
          await outbound.mutateAsync(input);
          toast.success(OUTBOUND_TEXTS.called(input.to));
          setCalling(null);
        }}
      />
      <ConfirmDeleteDialog
        item={deleting}
        title="Are you absolutely sure?"
        consequence={
          deleting?.provider === "sip"
            ? "will be deleted. Calls to it from its SIP trunk will no longer reach your assistant."
            : "will be deleted and released from your Twilio account. Calls to it will no longer reach your assistant. This action cannot be undone."
        }
        onOpenChange={(open) => !open && setDeleting(null)}
        onConfirm={onDelete}
      />
    </section>
  );
}

/** Spec §8 "Error fetching phone numbers (toast with message)": once per failure. */
function FetchErrorToast({ error }: { error: Error | null }) {
  const [shown, setShown] = useState<Error | null>(null);
  if (error && error !== shown) {
    setShown(error);
    toast.error(M.fetchFailed, { description: error.message });
  }
  return null;
}
