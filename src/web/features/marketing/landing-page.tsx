import { CustomerStories } from "./customer-stories";
import { LandingHero } from "./landing-hero";
import { ClosingCta, LandingEnterprise, LandingHowItWorks, LandingSolutions } from "./landing-platform";
import { LandingBenefits, LandingResults } from "./landing-results";
import { MarketingLayout } from "./marketing-layout";

/** The landing page (/): the eight sections of spec §2, in order. */
export function LandingPage() {
  return (
    <MarketingLayout>
      <LandingHero />
      <CustomerStories />
      <LandingResults />
      <LandingBenefits />
      <LandingHowItWorks />
      <LandingEnterprise />
      <LandingSolutions />
      <ClosingCta />
    </MarketingLayout>
  );
}
