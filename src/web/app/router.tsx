import { lazy, Suspense, type ComponentType } from "react";
import { Route, Routes } from "react-router";
import { LandingPage } from "@/features/marketing/landing-page";
import { RequestADemoPage } from "@/features/marketing/request-a-demo-page";
import { NotFoundPage } from "@/features/not-found/not-found-page";
import { useSession } from "@/lib/session";
import { appChunks } from "./route-chunks";
import { DeferredToaster, RouteErrorBoundary, ScrollToTop } from "./route-frame";

/*
 * Declarative routes with React.lazy pages rather than a data router: nothing here needs loaders
 * or actions, and the data router's engine would add ~18 KB gzipped to every visitor's first
 * download. Visitors fetch only the marketing chunks; the signed-in app (guards, layout, pages)
 * loads after login. The landing and demo pages themselves are in the entry chunk (the demo
 * form's heavier code stays split): they are most visitors' first page, and a lazy chunk would
 * cost them one more round trip before anything paints.
 */
const page = <K extends string>(load: () => Promise<Record<K, ComponentType>>, name: K) =>
  lazy(async () => ({ default: (await load())[name] }));

const marketingContent = () => import("@/features/marketing/company-pages");
const solutions = () => import("@/features/marketing/solutions-pages");
const resources = () => import("@/features/marketing/resources-pages");

const HowItWorksPage = page(marketingContent, "HowItWorksPage");
const PricingPage = page(marketingContent, "PricingPage");
const AboutPage = page(marketingContent, "AboutPage");
const ContactPage = page(marketingContent, "ContactPage");
const PrivacyPolicyPage = page(() => import("@/features/marketing/privacy-policy-page"), "PrivacyPolicyPage");
const GuidesPage = page(resources, "GuidesPage");
const BlogPage = page(resources, "BlogPage");
const CallRecordingsPage = page(resources, "CallRecordingsPage");
const PressPage = page(resources, "PressPage");
const IndustriesPage = page(solutions, "IndustriesPage");
const UseCasesPage = page(solutions, "UseCasesPage");
const IndustryPage = lazy(async () => ({ default: (await solutions()).IndustryPage }));
const UseCasePage = lazy(async () => ({ default: (await solutions()).UseCasePage }));
const ProductPage = lazy(async () => ({ default: (await import("@/features/marketing/product-pages")).ProductPage }));

const GuestOnly = page(appChunks.guards, "GuestOnly");
const RequireAuth = page(appChunks.guards, "RequireAuth");
const LoginPage = page(() => import("@/features/auth/login-page"), "LoginPage");
const SignupPage = page(() => import("@/features/auth/signup-page"), "SignupPage");
const ForgotPasswordPage = page(() => import("@/features/auth/forgot-password-page"), "ForgotPasswordPage");
const ResetPasswordPage = page(() => import("@/features/auth/reset-password-page"), "ResetPasswordPage");
const InvitePage = page(() => import("@/features/auth/invite-page"), "InvitePage");
const AppLayout = page(appChunks.layout, "AppLayout");
const AssistantsPage = page(appChunks.assistants, "AssistantsRoute");
const PhoneNumbersPage = page(appChunks.phoneNumbers, "PhoneNumbersPage");
const CallsPage = page(appChunks.calls, "CallsPage");
const CampaignsPage = page(appChunks.campaigns, "CampaignsPage");
const CampaignPage = page(appChunks.campaign, "CampaignPage");
const LivePage = page(appChunks.live, "LivePage");
const ToolsPage = page(appChunks.tools, "ToolsPage");
const KnowledgePage = page(appChunks.knowledge, "KnowledgePage");
const SettingsPage = page(appChunks.settings, "SettingsRoute");

const notFound = <NotFoundPage />;

/** An unknown path: inside the app's frame for a signed-in user (navigation kept), a page of its own otherwise. */
function NotFoundRoute() {
  const { data: user, isPending } = useSession();
  if (isPending) return null;
  if (!user) return notFound;
  return (
    <Routes>
      <Route element={<AppLayout />}>
        <Route path="*" element={<NotFoundPage inApp />} />
      </Route>
    </Routes>
  );
}

export function AppRoutes() {
  return (
    <>
      <ScrollToTop />
      <RouteErrorBoundary>
        <Suspense fallback={null}>
          <Routes>
            <Route path="/" element={<LandingPage />} />
            <Route path="/request-a-demo" element={<RequestADemoPage />} />
            <Route path="/how-it-works" element={<HowItWorksPage />} />
            <Route path="/pricing" element={<PricingPage />} />
            <Route path="/company/about" element={<AboutPage />} />
            <Route path="/company/press" element={<PressPage />} />
            <Route path="/contact" element={<ContactPage />} />
            <Route path="/resources/guides" element={<GuidesPage />} />
            <Route path="/resources/call-recordings" element={<CallRecordingsPage />} />
            <Route path="/blog" element={<BlogPage />} />
            <Route path="/privacy-policy" element={<PrivacyPolicyPage />} />
            <Route path="/industries" element={<IndustriesPage />} />
            <Route path="/industries/:slug" element={<IndustryPage notFound={notFound} />} />
            <Route path="/use-cases" element={<UseCasesPage />} />
            <Route path="/use-cases/:slug" element={<UseCasePage notFound={notFound} />} />
            <Route path="/product/:slug" element={<ProductPage notFound={notFound} />} />

            <Route element={<GuestOnly />}>
              <Route path="/login" element={<LoginPage />} />
              <Route path="/signup" element={<SignupPage />} />
              <Route path="/forgot-password" element={<ForgotPasswordPage />} />
            </Route>
            {/* Not guest-only: the e-mailed link must work in a browser that is still signed in. */}
            <Route path="/reset-password" element={<ResetPasswordPage />} />
            {/* Both: a signed-in person joins here, anyone else logs in or signs up and comes back. */}
            <Route path="/invite" element={<InvitePage />} />
            <Route element={<RequireAuth />}>
              <Route element={<AppLayout />}>
                <Route path="/assistants" element={<AssistantsPage />} />
                <Route path="/phone-numbers" element={<PhoneNumbersPage />} />
                <Route path="/calls" element={<CallsPage />} />
                <Route path="/campaigns" element={<CampaignsPage />} />
                <Route path="/campaigns/:id" element={<CampaignPage />} />
                <Route path="/live" element={<LivePage />} />
                <Route path="/tools" element={<ToolsPage />} />
                <Route path="/knowledge" element={<KnowledgePage />} />
                <Route path="/settings" element={<SettingsPage />} />
              </Route>
            </Route>
            <Route path="*" element={<NotFoundRoute />} />
          </Routes>
        </Suspense>
      </RouteErrorBoundary>
      <DeferredToaster />
    </>
  );
}
