import type { DemoRequestInput } from "../src/shared/demo-requests.ts";

/** A demo request that passes every rule of the form: the route tests and the route-table fuzz start from it. */
export const VALID_DEMO_REQUEST: DemoRequestInput = {
  first_name: "Priya",
  last_name: "Raman",
  company: "Northwind Energy",
  work_email: "priya.raman@northwind.example",
  role: "Head of Customer Operations",
  phone_number: "+1 415 555 0134",
  location: "United States",
  yearly_call_volume: "100000-500000",
  comments: "We handle outage calls in three languages.",
};
