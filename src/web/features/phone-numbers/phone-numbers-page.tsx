export function PhoneNumbersPage() {
  return (
    <section className="space-y-2">
      <h1 className="text-2xl font-semibold tracking-tight">Phone Numbers</h1>
    </section>
  );
}
