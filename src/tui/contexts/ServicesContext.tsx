import { createContext, useContext } from 'react';
import type { TuiServices } from '../services.js';

export const ServicesContext = createContext<TuiServices | undefined>(undefined);

export function useServices(): TuiServices {
  const services = useContext(ServicesContext);
  if (!services) throw new Error('useServices must be used inside <ServicesContext.Provider>');
  return services;
}
