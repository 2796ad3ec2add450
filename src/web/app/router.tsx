import { createBrowserRouter } from "react-router";
import { GuestOnly, RequireAuth } from "@/features/auth/guards";
import { NotFoundPage } from "@/features/not-found/not-found-page";

/**
 * Visitors download only the marketing chunk; the signed-in app (layout and pages) is split out
 * behind `lazy` so it loads after login.
 */
export const router = createBrowserRouter([
  { path: "/", lazy: async () => ({ Component: (await import("@/features/marketing/landing-page")).LandingPage }) },
  {
    element: <GuestOnly />,
    children: [
      { path: "/login", lazy: async () => ({ Component: (await import("@/features/auth/login-page")).LoginPage }) },
      { path: "/signup", lazy: async () => ({ Component: (await import("@/features/auth/signup-page")).SignupPage }) },
    ],
  },
  {
    element: <RequireAuth />,
    children: [
      {
        lazy: async () => ({ Component: (await import("./app-layout")).AppLayout }),
        children: [
          { path: "/assistants", lazy: async () => ({ Component: (await import("@/features/assistants/assistants-page")).AssistantsPage }) },
          { path: "/phone-numbers", lazy: async () => ({ Component: (await import("@/features/phone-numbers/phone-numbers-page")).PhoneNumbersPage }) },
          { path: "/calls", lazy: async () => ({ Component: (await import("@/features/calls/calls-page")).CallsPage }) },
          { path: "/tools", lazy: async () => ({ Component: (await import("@/features/tools/tools-page")).ToolsPage }) },
          { path: "/settings", lazy: async () => ({ Component: (await import("@/features/settings/settings-page")).SettingsPage }) },
        ],
      },
    ],
  },
  { path: "*", Component: NotFoundPage },
]);
