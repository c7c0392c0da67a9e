// The baseline of tui.first_frame: the smallest Ink app, started the same way as geolab.
import React from 'react';
import { render, Text } from 'ink';

render(React.createElement(Text, null, 'hello from ink'));
