// No zod here: the landing page imports these constants, and zod would triple its download.
// The server checks its responses against this shape (modules/marketing/marketing.routes.ts).

/**
 * A customer-story card on the landing page (spec §2: id, title, backgroundImage, logoImage,
 * videoUrl). Every address is a signed, expiring media URL, so the list is fetched fresh
 * rather than baked into the page.
 */
export interface CustomerCard {
  id: string;
  title: string;
  backgroundImage: string;
  logoImage: string;
  videoUrl: string;
  captionsUrl: string;
}

export const CUSTOMERS_API_PATH = "/api/marketing/customers";

/** How long the card addresses stay valid; the page refetches well before they run out. */
export const CUSTOMER_MEDIA_URL_LIFETIME_MS = 3_600_000;

/** Spec §9: the landing bar turns solid once the page has scrolled more than this. */
export const LANDING_BAR_SCROLL_THRESHOLD_PX = 10;
