import { z } from "zod";
import { CUSTOMER_MEDIA_URL_LIFETIME_MS, type CustomerCard } from "../../../shared/marketing.ts";
import type { UrlSigner } from "../../storage/signed-url.ts";
import type { Storage } from "../../storage/storage.ts";

/** The manifest lives in storage too, so an operator can replace the shipped stories by writing objects. */
export const CUSTOMERS_MANIFEST_KEY = "media/customers.json";

const manifestSchema = z.array(
  z.object({
    id: z.string().min(1),
    title: z.string().min(1),
    backgroundKey: z.string().min(1),
    logoKey: z.string().min(1),
    videoKey: z.string().min(1),
    captionsKey: z.string().min(1),
  }),
);

export function createMarketingService({ storage, signer, now = Date.now }: { storage: Storage; signer: UrlSigner; now?: () => number }) {
  return {
    /** The landing page's customer cards with fresh addresses (valid one hour); none when no manifest is stored. */
    async customerCards(): Promise<CustomerCard[]> {
      const manifest = await storage.get(CUSTOMERS_MANIFEST_KEY);
      if (!manifest) return [];
      // A malformed manifest is an operator error: let it surface as a logged 500, not an empty page.
      const entries = manifestSchema.parse(JSON.parse(manifest.body.toString("utf8")));
      const sign = (key: string) => signer.signUrl(key, { expiresInMs: CUSTOMER_MEDIA_URL_LIFETIME_MS, now: now() });
      return entries.map((e) => ({
        id: e.id,
        title: e.title,
        backgroundImage: sign(e.backgroundKey),
        logoImage: sign(e.logoKey),
        videoUrl: sign(e.videoKey),
        captionsUrl: sign(e.captionsKey),
      }));
    },
  };
}
