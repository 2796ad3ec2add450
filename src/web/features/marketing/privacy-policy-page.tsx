import { Link } from "react-router";
import { ContentPage } from "./content-page";

const SECTIONS: { title: string; body: string }[] = [
  {
    title: "What we collect",
    body: "When you request a demo we collect the details you enter in the form: your name, company, work email, role, phone number, location, yearly call volume and any comments. When you create an account we collect your name, email address and password (stored only as a secure hash).",
  },
  {
    title: "How we use it",
    body: "Demo request details are used only to contact you about your demo and to prepare it. Account details are used to sign you in and operate the service. We do not sell personal data, and we do not use it for advertising.",
  },
  {
    title: "Calls and recordings",
    body: "Calls handled by Switchboard assistants, their transcripts and recordings belong to the customer who runs the assistant. In self-hosted deployments they are stored in that customer's own database and storage, under their retention policies.",
  },
  {
    title: "Security",
    body: "Credentials such as API keys are encrypted at rest. Media and recordings are served only through short-lived signed addresses. Sessions use secure, HttpOnly cookies.",
  },
  {
    title: "Your choices",
    body: "You can ask us to access, correct or delete the personal data we hold about you at any time. We answer every request within 30 days.",
  },
];

export function PrivacyPolicyPage() {
  return (
    <ContentPage eyebrow="Legal" title="Privacy Policy" lede="What we collect when you visit, request a demo or use Switchboard, and what we do with it." cta={false}>
      <div className="max-w-3xl">
        <p className="text-sm text-zinc-500">Last updated: November 2026</p>
        {SECTIONS.map((section) => (
          <section key={section.title} className="mt-10">
            <h2 className="text-2xl font-semibold tracking-tight text-zinc-950">{section.title}</h2>
            <p className="mt-3 leading-7 text-zinc-700">{section.body}</p>
          </section>
        ))}
        <section className="mt-10">
          <h2 className="text-2xl font-semibold tracking-tight text-zinc-950">Contact</h2>
          <p className="mt-3 leading-7 text-zinc-700">
            Questions about this policy? Reach us through the{" "}
            <Link to="/contact" className="font-medium text-violet-700 underline underline-offset-2 hover:text-violet-900">
              contact page
            </Link>
            .
          </p>
        </section>
      </div>
    </ContentPage>
  );
}
