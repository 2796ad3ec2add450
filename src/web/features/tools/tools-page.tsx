export function ToolsPage() {
  return (
    <section className="space-y-2">
      <h1 className="text-2xl font-semibold tracking-tight">Tools</h1>
    </section>
  );
}
