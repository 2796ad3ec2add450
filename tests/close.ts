/** Closes test resources one after another, in the order given: apps before the database or fakes they use. */
export async function closeInOrder(...resources: ({ close(): unknown } | undefined)[]): Promise<void> {
  for (const resource of resources) await resource?.close();
}
