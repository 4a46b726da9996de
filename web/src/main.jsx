import { render } from 'preact';
import { App } from './App.jsx';
import './app.css';

render(<App />, document.getElementById('app'));
