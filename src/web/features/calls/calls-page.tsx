export function CallsPage() {
  return (
    <section className="space-y-2">
      <h1 className="text-2xl font-semibold tracking-tight">Calls</h1>
    </section>
  );
}
