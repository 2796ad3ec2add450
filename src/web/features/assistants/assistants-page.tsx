export function AssistantsPage() {
  return (
    <section className="space-y-2">
      <h1 className="text-2xl font-semibold tracking-tight">Assistants</h1>
    </section>
  );
}
