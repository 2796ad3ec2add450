export function SettingsPage() {
  return (
    <section className="space-y-2">
      <h1 className="text-2xl font-semibold tracking-tight">Account Settings</h1>
    </section>
  );
}
