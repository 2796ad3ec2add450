/** Every path the marketing header and footer link to (spec §2); each one is a real page. */

export interface SiteLink {
  label: string;
  to: string;
}

/** Top bar: the spec's Product, Resources and Company entries. */
export const HEADER_LINKS: SiteLink[] = [
  { label: "Product", to: "/product/agent-studio" },
  { label: "Resources", to: "/resources/guides" },
  { label: "Company", to: "/company/about" },
];

export const PRODUCT_LINKS: SiteLink[] = [
  { label: "Agent Studio", to: "/product/agent-studio" },
  { label: "Technology", to: "/product/technology" },
  { label: "Integrations", to: "/product/integrations" },
  { label: "Pricing", to: "/pricing" },
  { label: "Data Insights", to: "/product/data-insights" },
  { label: "Security", to: "/product/security" },
  { label: "Languages", to: "/product/languages" },
];

export const INDUSTRY_LINKS: SiteLink[] = [
  { label: "Consumer Services", to: "/industries/consumer-services" },
  { label: "Financial Services", to: "/industries/financial-services" },
  { label: "Healthcare", to: "/industries/healthcare" },
  { label: "Hotels", to: "/industries/hotels" },
  { label: "Insurance", to: "/industries/insurance" },
  { label: "Restaurants", to: "/industries/restaurants" },
  { label: "Retail", to: "/industries/retail" },
  { label: "Telecom", to: "/industries/telecom" },
  { label: "Travel", to: "/industries/travel" },
  { label: "Utilities", to: "/industries/utilities" },
];

export const USE_CASE_LINKS: SiteLink[] = [
  { label: "Account Management", to: "/use-cases/account-management" },
  { label: "Authentication", to: "/use-cases/authentication" },
  { label: "Call Routing", to: "/use-cases/call-routing" },
  { label: "Billing & Payments", to: "/use-cases/billing-payments" },
  { label: "Booking & Reservations", to: "/use-cases/booking-reservations" },
  { label: "FAQs", to: "/use-cases/faqs" },
  { label: "Order Management", to: "/use-cases/order-management" },
  { label: "Troubleshooting", to: "/use-cases/troubleshooting" },
];

export const RESOURCE_LINKS: SiteLink[] = [
  { label: "Call Recordings", to: "/resources/call-recordings" },
  { label: "Blog", to: "/blog" },
  { label: "Guides", to: "/resources/guides" },
];

export const COMPANY_LINKS: SiteLink[] = [
  { label: "About", to: "/company/about" },
  { label: "Press", to: "/company/press" },
  { label: "Contact", to: "/contact" },
  { label: "Privacy Policy", to: "/privacy-policy" },
];

export const FOOTER_COLUMNS: { title: string; links: SiteLink[] }[] = [
  { title: "Product", links: PRODUCT_LINKS },
  { title: "Industries", links: INDUSTRY_LINKS },
  { title: "Use Cases", links: USE_CASE_LINKS },
  { title: "Resources", links: RESOURCE_LINKS },
  { title: "Company", links: COMPANY_LINKS },
];

export type SocialNetwork = "linkedin" | "x" | "youtube";

export const SOCIAL_LINKS: { network: SocialNetwork; label: string; href: string }[] = [
  { network: "linkedin", label: "Switchboard on LinkedIn", href: "https://www.linkedin.com/company/switchboard-voice" },
  { network: "x", label: "Switchboard on X", href: "https://x.com/switchboardvoice" },
  { network: "youtube", label: "Switchboard on YouTube", href: "https://www.youtube.com/@switchboardvoice" },
];
