import type { ContentPoint } from "./content-page";

export interface Solution {
  slug: string;
  name: string;
  summary: string;
  points: ContentPoint[];
}

export const INDUSTRIES: Solution[] = [
  {
    slug: "consumer-services",
    name: "Consumer Services",
    summary: "Subscriptions, memberships and home services with high volumes of simple calls.",
    points: [
      { title: "Plan changes", text: "Pauses, upgrades and cancellations handled with the retention offers you define." },
      { title: "Appointment windows", text: "Technician visits booked, moved and confirmed against live availability." },
      { title: "Service status", text: "Callers hear where their order or visit stands without waiting for an agent." },
    ],
  },
  {
    slug: "financial-services",
    name: "Financial Services",
    summary: "Banks, lenders and card issuers answering balance, card and payment questions.",
    points: [
      { title: "Verified callers", text: "Identity checks run before any account detail is shared, every time." },
      { title: "Card servicing", text: "Lost cards frozen, disputed charges explained and replacements ordered." },
      { title: "Payment help", text: "Due dates, balances and payment arrangements handled around the clock." },
    ],
  },
  {
    slug: "healthcare",
    name: "Healthcare",
    summary: "Clinics and health networks scheduling, reminding and routing patients.",
    points: [
      { title: "Scheduling", text: "Appointments booked and rescheduled against each provider's calendar." },
      { title: "Pre-visit questions", text: "Directions, preparation and coverage questions answered consistently." },
      { title: "Clinical routing", text: "Anything clinical goes straight to the right nurse line with context." },
    ],
  },
  {
    slug: "hotels",
    name: "Hotels",
    summary: "Reservations desks and front offices that never miss a booking call.",
    points: [
      { title: "Direct bookings", text: "Rates quoted and rooms booked on the phone, without an OTA commission." },
      { title: "Guest requests", text: "Late checkout, parking and amenities handled while the front desk is busy." },
      { title: "Every language", text: "International guests are served in their own language, day and night." },
    ],
  },
  {
    slug: "insurance",
    name: "Insurance",
    summary: "Carriers and brokers handling policy questions, claims intake and renewals.",
    points: [
      { title: "First notice of loss", text: "Claims are opened with the right details captured the first time." },
      { title: "Policy questions", text: "Coverage, deductibles and documents explained from the policy record." },
      { title: "Renewal peaks", text: "Seasonal surges are absorbed without temporary hiring." },
    ],
  },
  {
    slug: "restaurants",
    name: "Restaurants",
    summary: "Groups and single sites taking reservations and orders during the rush.",
    points: [
      { title: "Reservations", text: "Tables booked, changed and confirmed while staff look after the dining room." },
      { title: "Takeout orders", text: "Orders taken accurately, with modifiers, and sent straight to the kitchen." },
      { title: "Hours and menus", text: "Allergens, opening hours and directions answered instantly." },
    ],
  },
  {
    slug: "retail",
    name: "Retail",
    summary: "Stores and e-commerce brands answering order, return and stock questions.",
    points: [
      { title: "Where is my order", text: "Tracking, delivery windows and delays explained from your order system." },
      { title: "Returns", text: "Return labels issued and refunds explained without a queue." },
      { title: "Store stock", text: "Availability checked across locations while the caller is on the line." },
    ],
  },
  {
    slug: "telecom",
    name: "Telecom",
    summary: "Carriers and ISPs resolving billing, outage and device calls at scale.",
    points: [
      { title: "Outage calls", text: "Known outages recognised and explained before a ticket is ever opened." },
      { title: "Troubleshooting", text: "Routers restarted and settings checked step by step with the caller." },
      { title: "Plan questions", text: "Usage, add-ons and plan changes handled from the account." },
    ],
  },
  {
    slug: "travel",
    name: "Travel",
    summary: "Airlines and agencies rebooking, informing and reassuring travellers.",
    points: [
      { title: "Disruption surges", text: "When flights cancel, every caller is answered and rebooked at once." },
      { title: "Booking changes", text: "Seats, baggage and date changes made with fare rules applied." },
      { title: "Trip information", text: "Check-in, documents and baggage rules answered in 12 languages." },
    ],
  },
  {
    slug: "utilities",
    name: "Utilities",
    summary: "Energy and water providers handling moves, meters, bills and outages.",
    points: [
      { title: "Move in, move out", text: "Service starts and stops scheduled with final readings captured." },
      { title: "Bill explanations", text: "Usage and charges walked through line by line from the account." },
      { title: "Outage reporting", text: "Reports logged and restoration estimates shared during storms." },
    ],
  },
];

export const USE_CASES: Solution[] = [
  {
    slug: "account-management",
    name: "Account Management",
    summary: "Profile, address and plan changes made on the call, in your systems.",
    points: [
      { title: "Self-service updates", text: "Addresses, contact details and preferences changed through your APIs." },
      { title: "Plan changes", text: "Upgrades and downgrades quoted and applied with your business rules." },
      { title: "Audit trail", text: "Every change is in the transcript with the tool call that made it." },
    ],
  },
  {
    slug: "authentication",
    name: "Authentication",
    summary: "Callers verified with the checks you choose before anything is shared.",
    points: [
      { title: "Knowledge checks", text: "Date of birth, postcode or account details matched against your records." },
      { title: "One-time codes", text: "A code sent by text message and read back by the caller." },
      { title: "Fail safely", text: "Unverified callers are routed to an agent, never given account data." },
    ],
  },
  {
    slug: "call-routing",
    name: "Call Routing",
    summary: "Natural-language routing that replaces press-one menus.",
    points: [
      { title: "Say it once", text: "Callers explain in their own words; no menu trees to navigate." },
      { title: "Right team first time", text: "Intent, language and account tier decide where the call goes." },
      { title: "Context travels", text: "Agents receive the transcript so the caller never repeats themselves." },
    ],
  },
  {
    slug: "billing-payments",
    name: "Billing & Payments",
    summary: "Balances, due dates, payment plans and billing disputes.",
    points: [
      { title: "Balance and due date", text: "Read from your billing system the moment the caller asks." },
      { title: "Payment plans", text: "Arrangements offered within the limits you configure." },
      { title: "Disputes", text: "Charges explained and disputes opened with the details captured." },
    ],
  },
  {
    slug: "booking-reservations",
    name: "Booking & Reservations",
    summary: "Appointments, tables, rooms and seats booked against live availability.",
    points: [
      { title: "Live availability", text: "Slots checked in your scheduler while the caller waits a second, not minutes." },
      { title: "Changes and cancellations", text: "Moves and cancellations with your policies applied." },
      { title: "Confirmations", text: "A confirmation sent by text or email before the call ends." },
    ],
  },
  {
    slug: "faqs",
    name: "FAQs",
    summary: "Hours, policies and how-to questions answered instantly and consistently.",
    points: [
      { title: "Always current", text: "Answers come from your instructions and systems, updated in minutes." },
      { title: "Consistent", text: "Every caller hears the same correct policy, in their language." },
      { title: "Free your agents", text: "The calls that need no judgement no longer reach your queue." },
    ],
  },
  {
    slug: "order-management",
    name: "Order Management",
    summary: "Order status, changes, cancellations and returns.",
    points: [
      { title: "Order status", text: "Tracking and delivery estimates read straight from your order system." },
      { title: "Changes", text: "Addresses and items changed while the order can still be changed." },
      { title: "Returns and refunds", text: "Returns authorised and refund timelines explained." },
    ],
  },
  {
    slug: "troubleshooting",
    name: "Troubleshooting",
    summary: "Guided, step-by-step fixes for devices, accounts and services.",
    points: [
      { title: "Step by step", text: "The assistant walks the caller through each check and listens to the result." },
      { title: "Knows the account", text: "Known incidents and device details are checked before the first step." },
      { title: "Escalates with notes", text: "If the fix fails, a ticket is opened with everything already tried." },
    ],
  },
];
